import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { invalidParameter, LogsApiError } from './errors.ts';
import { parseInsightsQuery } from './insights-parse.ts';
import { type InsightsResult, runInsightsQuery } from './insights-run.ts';
import { DEFAULT_PAGE, LocalLogs } from './store.ts';

/**
 * CloudWatch Logs in the sandbox over the JSON 1.1 protocol (`X-Amz-Target: Logs_20140328.<op>`),
 * so `@aws-sdk/client-cloudwatch-logs` works through `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`:
 *
 * - `GetLogEvents` (the bug fix path reads build logs): forward from the head or a token;
 *   `nextForwardToken` answers the same token once the stream's end is reached.
 * - `FilterLogEvents` (the incident tools): filter patterns as filter-pattern.ts says, time
 *   bounds, stream names or prefix, pages of `limit` with `nextToken`.
 * - `StartQuery` / `GetQueryResults`: Logs Insights for the subset insights-parse.ts lists;
 *   a query runs at once and is `Complete` at the first `GetQueryResults`.
 * - `CreateLogGroup`, `CreateLogStream`, `PutLogEvents`: to seed it as an application would
 *   write (the demo incident, the moto comparison).
 *
 * Errors are the service's: `{"__type": "<code>", "message"}` with HTTP 400. Requests are not
 * signature-checked. Checked against moto_server in test/local/logs-moto.test.ts.
 */

export const LOGS_TARGET_PREFIX = 'Logs_20140328.';

const LOCAL_ACCOUNT = '000000000000';
const Name = z.string().min(1).max(512);
/** Milliseconds since the epoch (FilterLogEvents, PutLogEvents) or seconds (StartQuery). */
const Time = z.number().int().nonnegative();

const GetLogEventsInput = z.object({
  logGroupName: Name,
  logStreamName: Name,
  startFromHead: z.boolean().optional(),
  nextToken: z.string().optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});

const FilterLogEventsInput = z.object({
  logGroupName: Name.optional(),
  logGroupIdentifier: Name.optional(),
  logStreamNames: z.array(Name).min(1).max(100).optional(),
  logStreamNamePrefix: Name.optional(),
  startTime: Time.optional(),
  endTime: Time.optional(),
  filterPattern: z.string().max(1024).optional(),
  nextToken: z.string().optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
  interleaved: z.boolean().optional(),
  unmask: z.boolean().optional(),
});

const StartQueryInput = z.object({
  logGroupName: Name.optional(),
  logGroupNames: z.array(Name).min(1).max(50).optional(),
  logGroupIdentifiers: z.array(Name).min(1).max(50).optional(),
  startTime: Time,
  endTime: Time,
  queryString: z.string().min(1).max(10_000),
  limit: z.number().int().min(1).max(10_000).optional(),
});

const CreateLogGroupInput = z.object({ logGroupName: Name });
const CreateLogStreamInput = z.object({ logGroupName: Name, logStreamName: Name });
const PutLogEventsInput = z.object({
  logGroupName: Name,
  logStreamName: Name,
  logEvents: z
    .array(z.object({ timestamp: Time, message: z.string().min(1) }))
    .min(1)
    .max(10_000),
  sequenceToken: z.string().optional(),
});

/** The emulated service: the stored logs and the Insights queries run so far. */
export class LogsService {
  private readonly queries = new Map<string, { result: InsightsResult; polls: number }>();

  /**
   * @param options.runningPolls how many `GetQueryResults` of a query answer `Running` (with no
   * rows) before `Complete`, as the service does while a query runs. @default 0
   */
  constructor(
    readonly logs: LocalLogs = new LocalLogs(),
    private readonly options: { runningPolls?: number } = {},
  ) {}

  call(operation: string, raw: unknown): unknown {
    switch (operation) {
      case 'GetLogEvents':
        return this.getLogEvents(parse(GetLogEventsInput, raw));
      case 'FilterLogEvents': {
        const input = parse(FilterLogEventsInput, raw);
        const logGroupName = groupName(input.logGroupName, input.logGroupIdentifier);
        return this.logs.filterLogEvents({ ...input, logGroupName });
      }
      case 'StartQuery':
        return this.startQuery(parse(StartQueryInput, raw));
      case 'GetQueryResults': {
        const { queryId } = parse(z.object({ queryId: z.string().min(1) }), raw);
        const query = this.queries.get(queryId);
        if (query === undefined) throw new LogsApiError('ResourceNotFoundException', 'Query does not exist.');
        query.polls++;
        if (query.polls <= (this.options.runningPolls ?? 0))
          return {
            results: [],
            statistics: { recordsMatched: 0, recordsScanned: 0, bytesScanned: 0 },
            status: 'Running',
          };
        const { result } = query;
        return {
          results: result.rows,
          statistics: {
            recordsMatched: result.recordsMatched,
            recordsScanned: result.recordsScanned,
            bytesScanned: result.bytesScanned,
          },
          status: 'Complete',
        };
      }
      case 'CreateLogGroup':
        this.logs.createLogGroup(parse(CreateLogGroupInput, raw).logGroupName);
        return {};
      case 'CreateLogStream': {
        const input = parse(CreateLogStreamInput, raw);
        this.logs.createLogStream(input.logGroupName, input.logStreamName);
        return {};
      }
      case 'PutLogEvents': {
        const input = parse(PutLogEventsInput, raw);
        this.logs.putLogEvents(input.logGroupName, input.logStreamName, input.logEvents);
        return { nextSequenceToken: randomUUID().replace(/-/g, '') };
      }
      default:
        throw new LogsApiError('UnknownOperationException', `Unknown operation ${operation}`);
    }
  }

  private getLogEvents(input: z.infer<typeof GetLogEventsInput>) {
    const events = this.logs.stream(input.logGroupName, input.logStreamName);
    const limit = input.limit ?? DEFAULT_PAGE;
    const fromToken = /^f\/(\d+)$/.exec(input.nextToken ?? '');
    if (input.nextToken !== undefined && fromToken === null)
      throw invalidParameter('The specified nextToken is invalid.');
    const start = fromToken
      ? Number(fromToken[1])
      : input.startFromHead
        ? 0
        : Math.max(0, events.length - limit);
    const page = events.slice(start, start + limit);
    const end = start + page.length;
    return {
      events: page.map(({ timestamp, message, ingestionTime }) => ({ timestamp, message, ingestionTime })),
      nextForwardToken: `f/${end}`,
      nextBackwardToken: `b/${start}`,
    };
  }

  private startQuery(input: z.infer<typeof StartQueryInput>) {
    const groups = [
      ...(input.logGroupName === undefined ? [] : [input.logGroupName]),
      ...(input.logGroupNames ?? []),
      ...(input.logGroupIdentifiers ?? []).map((id) => groupName(undefined, id)),
    ];
    if (groups.length === 0)
      throw invalidParameter('One of logGroupName, logGroupNames or logGroupIdentifiers is required');
    if (input.endTime < input.startTime)
      throw invalidParameter('endTime must be greater than or equal to startTime');
    for (const group of groups) {
      if (!this.logs.hasGroup(group))
        throw new LogsApiError('ResourceNotFoundException', `Log group '${group}' does not exist.`);
    }
    const commands = parseInsightsQuery(input.queryString);
    // StartQuery's times are in seconds; the end second is included whole.
    const events = this.logs.scan(groups, input.startTime * 1000, input.endTime * 1000 + 999);
    const queryId = randomUUID();
    this.queries.set(queryId, {
      result: runInsightsQuery(commands, events, {
        account: LOCAL_ACCOUNT,
        limit: input.limit ?? DEFAULT_PAGE,
      }),
      polls: 0,
    });
    return { queryId };
  }
}

function groupName(name: string | undefined, identifier: string | undefined): string {
  if (name !== undefined && identifier !== undefined)
    throw invalidParameter('logGroupName and logGroupIdentifier are mutually exclusive');
  const value = name ?? identifier;
  if (value === undefined) throw invalidParameter('logGroupName or logGroupIdentifier is required');
  // An identifier may be the group's ARN: arn:aws:logs:<region>:<account>:log-group:<name>[:*].
  const arn = /^arn:[^:]+:logs:[^:]*:[^:]*:log-group:(.+?)(?::\*)?$/.exec(value);
  return arn?.[1] ?? value;
}

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidParameter(z.prettifyError(parsed.error));
  return parsed.data;
}

export function createLogsApiHandler(service: LogsService | LocalLogs) {
  const logs = service instanceof LogsService ? service : new LogsService(service);
  return async (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const send = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
    try {
      if (!target.startsWith(LOGS_TARGET_PREFIX))
        throw new LogsApiError('UnknownOperationException', `Unknown operation ${target}`);
      let raw: unknown;
      try {
        raw = body === '' ? {} : JSON.parse(body);
      } catch (cause) {
        throw new LogsApiError('SerializationException', 'The request body is not JSON', {}, { cause });
      }
      send(200, logs.call(target.slice(LOGS_TARGET_PREFIX.length), raw));
    } catch (error) {
      if (!(error instanceof LogsApiError)) throw error;
      send(400, { __type: error.code, message: error.message, ...error.extra });
    }
  };
}

export { LogsApiError };
