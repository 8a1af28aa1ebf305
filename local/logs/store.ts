import { invalidParameter, LogsApiError } from './errors.ts';
import { compileFilterPattern } from './filter-pattern.ts';

/**
 * The log groups, streams and events of the sandbox's CloudWatch Logs, in memory. Events of a
 * stream are kept in time order (CloudWatch sorts a stream by timestamp), so reads are scans
 * over sorted arrays.
 */

export interface StoredEvent {
  readonly timestamp: number;
  readonly message: string;
  readonly ingestionTime: number;
  /** Unique in the group: CloudWatch's `eventId` is an opaque string. */
  readonly eventId: string;
}

export interface FilteredEvent extends StoredEvent {
  readonly logStreamName: string;
}

export interface FilterInput {
  logGroupName: string;
  logStreamNames?: readonly string[] | undefined;
  logStreamNamePrefix?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  filterPattern?: string | undefined;
  nextToken?: string | undefined;
  limit?: number | undefined;
}

/** Events per page of FilterLogEvents and GetLogEvents without a `limit` (CloudWatch's own default). */
export const DEFAULT_PAGE = 10_000;

export class LocalLogs {
  private readonly groups = new Map<string, Map<string, StoredEvent[]>>();
  private sequence = 0;

  constructor(private readonly now: () => number = Date.now) {}

  createLogGroup(name: string): void {
    if (this.groups.has(name))
      throw new LogsApiError('ResourceAlreadyExistsException', 'The specified log group already exists');
    this.groups.set(name, new Map());
  }

  createLogStream(group: string, stream: string): void {
    const streams = this.group(group);
    if (streams.has(stream))
      throw new LogsApiError('ResourceAlreadyExistsException', 'The specified log stream already exists');
    streams.set(stream, []);
  }

  /** Adds an event, creating its group and stream when new (as CodeBuild's log writer does). */
  put(group: string, stream: string, event: { timestamp: number; message: string }): void {
    let streams = this.groups.get(group);
    if (streams === undefined) {
      streams = new Map();
      this.groups.set(group, streams);
    }
    let events = streams.get(stream);
    if (events === undefined) {
      events = [];
      streams.set(stream, events);
    }
    const stored = {
      ...event,
      ingestionTime: this.now(),
      eventId: String(++this.sequence).padStart(12, '0'),
    };
    // Most writes append in time order; a late event is inserted where it belongs.
    let at = events.length;
    while (at > 0 && (events[at - 1]?.timestamp ?? 0) > event.timestamp) at--;
    events.splice(at, 0, stored);
  }

  /** PutLogEvents into an existing stream. */
  putLogEvents(
    group: string,
    stream: string,
    events: readonly { timestamp: number; message: string }[],
  ): void {
    if (!this.group(group).has(stream))
      throw new LogsApiError('ResourceNotFoundException', 'The specified log stream does not exist.');
    for (const event of events) this.put(group, stream, event);
  }

  /** The stream's events in time order. */
  stream(group: string, stream: string): readonly StoredEvent[] {
    const events = this.group(group).get(stream);
    if (events === undefined)
      throw new LogsApiError('ResourceNotFoundException', 'The specified log stream does not exist.');
    return events;
  }

  hasGroup(name: string): boolean {
    return this.groups.has(name);
  }

  /**
   * FilterLogEvents: the matching events of the chosen streams, interleaved by time (CloudWatch
   * ignores `interleaved: false` since 2019), a page of `limit` and a token to the next one.
   * `startTime` and `endTime` are both inclusive, as CloudWatch's are.
   */
  filterLogEvents(input: FilterInput) {
    const streams = this.group(input.logGroupName);
    if (input.logStreamNames !== undefined && input.logStreamNamePrefix !== undefined)
      throw invalidParameter('logStreamNames and logStreamNamePrefix are mutually exclusive');
    if (input.startTime !== undefined && input.endTime !== undefined && input.endTime < input.startTime)
      throw invalidParameter('endTime must be greater than or equal to startTime');
    const matches = compileFilterPattern(input.filterPattern);
    const chosen = [...streams.keys()].filter((name) =>
      input.logStreamNames !== undefined
        ? input.logStreamNames.includes(name)
        : name.startsWith(input.logStreamNamePrefix ?? ''),
    );
    const start = input.startTime ?? Number.NEGATIVE_INFINITY;
    const end = input.endTime ?? Number.POSITIVE_INFINITY;
    const events: FilteredEvent[] = [];
    for (const name of chosen) {
      for (const event of streams.get(name) ?? []) {
        if (event.timestamp < start) continue;
        if (event.timestamp > end) break;
        if (matches(event.message)) events.push({ ...event, logStreamName: name });
      }
    }
    events.sort((a, b) => a.timestamp - b.timestamp || a.eventId.localeCompare(b.eventId));
    // A token that is not ours answers an empty page, as CloudWatch does (moto notes the same).
    const offset = decodeToken(input.nextToken, input.logGroupName) ?? events.length;
    const limit = input.limit ?? DEFAULT_PAGE;
    const page = events.slice(offset, offset + limit);
    const next = offset + page.length;
    return {
      events: page.map((e) => ({
        logStreamName: e.logStreamName,
        timestamp: e.timestamp,
        message: e.message,
        ingestionTime: e.ingestionTime,
        eventId: e.eventId,
      })),
      searchedLogStreams: chosen.map((logStreamName) => ({ logStreamName, searchedCompletely: true })),
      ...(next < events.length ? { nextToken: encodeToken(input.logGroupName, next) } : {}),
    };
  }

  /** Every event of some groups within a time range (inclusive), for Logs Insights. */
  *scan(
    groups: readonly string[],
    start: number,
    end: number,
  ): Generator<FilteredEvent & { logGroupName: string }> {
    for (const group of groups) {
      for (const [logStreamName, events] of this.group(group)) {
        for (const event of events) {
          if (event.timestamp < start) continue;
          if (event.timestamp > end) break;
          yield { ...event, logStreamName, logGroupName: group };
        }
      }
    }
  }

  private group(name: string): Map<string, StoredEvent[]> {
    const streams = this.groups.get(name);
    if (streams === undefined)
      throw new LogsApiError('ResourceNotFoundException', 'The specified log group does not exist.');
    return streams;
  }
}

function encodeToken(group: string, offset: number): string {
  return Buffer.from(JSON.stringify({ g: group, o: offset })).toString('base64url');
}

function decodeToken(token: string | undefined, group: string): number | undefined {
  if (token === undefined) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      g?: unknown;
      o?: unknown;
    };
    if (parsed.g === group && typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0)
      return parsed.o;
  } catch {
    // Not a token of this emulator.
  }
  return undefined;
}
