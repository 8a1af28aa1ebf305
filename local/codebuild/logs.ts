/**
 * Build logs as CloudWatch Logs keeps them: events (one line each, with a timestamp) in a
 * stream of a group (`/aws/codebuild/<project>`, one stream per build). Each stream is capped
 * in bytes: past the cap the oldest lines are dropped and counted, so the tail, where a
 * failing command's output ends, is always kept.
 */

export interface LogEvent {
  readonly timestamp: number;
  readonly message: string;
}

interface Stream {
  events: LogEvent[];
  bytes: number;
  droppedEvents: number;
}

export class BuildLogs {
  private readonly streams = new Map<string, Stream>();

  /**
   * @param maxBytesPerStream the cap of one build's log.
   * @param onEvent sees every line as it is written (e.g. to hand it to a CloudWatch Logs emulator).
   */
  constructor(
    private readonly maxBytesPerStream: number,
    private readonly onEvent?: (groupName: string, streamName: string, event: LogEvent) => void,
  ) {}

  /** Forgets every stream. */
  clear(): void {
    this.streams.clear();
  }

  append(groupName: string, streamName: string, message: string, timestamp = Date.now()): void {
    const key = `${groupName}\u0000${streamName}`;
    let stream = this.streams.get(key);
    if (!stream) {
      stream = { events: [], bytes: 0, droppedEvents: 0 };
      this.streams.set(key, stream);
    }
    this.onEvent?.(groupName, streamName, { timestamp, message });
    const bytes = Buffer.byteLength(message);
    stream.events.push({ timestamp, message });
    stream.bytes += bytes;
    while (stream.bytes > this.maxBytesPerStream && stream.events.length > 1) {
      const dropped = stream.events.shift();
      stream.bytes -= Buffer.byteLength(dropped?.message ?? '');
      stream.droppedEvents += 1;
    }
  }

  /** The stream's events, oldest first, and how many older ones the cap dropped. */
  read(groupName: string, streamName: string): { events: LogEvent[]; droppedEvents: number } {
    const stream = this.streams.get(`${groupName}\u0000${streamName}`);
    return { events: [...(stream?.events ?? [])], droppedEvents: stream?.droppedEvents ?? 0 };
  }
}

/** Splits a child's output chunks into lines (a line may arrive in pieces). */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: Buffer): void; flush(): void } {
  let partial = '';
  return {
    push(chunk) {
      const text = partial + chunk.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    },
    flush() {
      if (partial !== '') onLine(partial);
      partial = '';
    },
  };
}
