import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';

/**
 * CloudWatch Logs in the sandbox, as far as the platform reads it: `GetLogEvents` over the
 * JSON protocol (`X-Amz-Target: Logs_20140328.GetLogEvents`), so `@aws-sdk/client-cloudwatch-logs`
 * works through `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`. Events are put in by the sandbox's
 * CodeBuild (`onLogEvent`), as CodeBuild writes a build's output to its log stream. Paging is
 * CloudWatch's: `nextForwardToken` answers the same token once the stream's end is reached.
 */

export const LOGS_TARGET_PREFIX = 'Logs_20140328.';

/** Events per page when the request gives no `limit` (CloudWatch's own default). */
const DEFAULT_LIMIT = 10_000;

interface StoredEvent {
  readonly timestamp: number;
  readonly message: string;
  readonly ingestionTime: number;
}

const GetLogEventsInput = z.object({
  logGroupName: z.string().min(1),
  logStreamName: z.string().min(1),
  startFromHead: z.boolean().optional(),
  nextToken: z.string().optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});

/** The log streams and their events, in memory. */
export class LocalLogs {
  private readonly streams = new Map<string, StoredEvent[]>();

  put(group: string, stream: string, event: { timestamp: number; message: string }): void {
    const key = `${group}\u0000${stream}`;
    let events = this.streams.get(key);
    if (events === undefined) {
      events = [];
      this.streams.set(key, events);
    }
    events.push({ ...event, ingestionTime: Date.now() });
  }

  /** GetLogEvents, forward from the head or from a token (`f/<index>`). */
  getLogEvents(input: z.infer<typeof GetLogEventsInput>) {
    const events = this.streams.get(`${input.logGroupName}\u0000${input.logStreamName}`);
    if (events === undefined)
      throw new LogsApiError('ResourceNotFoundException', 'The specified log stream does not exist.');
    const limit = input.limit ?? DEFAULT_LIMIT;
    const fromToken = /^f\/(\d+)$/.exec(input.nextToken ?? '');
    if (input.nextToken !== undefined && fromToken === null) {
      throw new LogsApiError('InvalidParameterException', 'The specified nextToken is invalid.');
    }
    const start = fromToken
      ? Number(fromToken[1])
      : input.startFromHead
        ? 0
        : Math.max(0, events.length - limit);
    const page = events.slice(start, start + limit);
    const end = start + page.length;
    return { events: page, nextForwardToken: `f/${end}`, nextBackwardToken: `b/${start}` };
  }
}

export class LogsApiError extends Error {
  override readonly name = 'LogsApiError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function createLogsApiHandler(logs: LocalLogs) {
  return async (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const send = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
    try {
      if (target !== `${LOGS_TARGET_PREFIX}GetLogEvents`) {
        throw new LogsApiError('UnknownOperationException', `Unknown operation ${target}`);
      }
      let raw: unknown;
      try {
        raw = body === '' ? {} : JSON.parse(body);
      } catch {
        throw new LogsApiError('SerializationException', 'The request body is not JSON');
      }
      const parsed = GetLogEventsInput.safeParse(raw);
      if (!parsed.success) throw new LogsApiError('InvalidParameterException', z.prettifyError(parsed.error));
      send(200, logs.getLogEvents(parsed.data));
    } catch (error) {
      if (!(error instanceof LogsApiError)) throw error;
      send(400, { __type: error.code, message: error.message });
    }
  };
}
