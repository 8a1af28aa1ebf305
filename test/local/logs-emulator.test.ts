import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  FilterLogEventsCommand,
  GetLogEventsCommand,
  GetQueryResultsCommand,
  MalformedQueryException,
  PutLogEventsCommand,
  ResourceNotFoundException,
  StartQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudWatchLogsSource } from '../../lambdas/workflows/incident-investigation/telemetry/cloudwatch-sources.ts';
import { createLogsApiHandler, LogsService } from '../../local/logs/api.ts';
import { compileFilterPattern } from '../../local/logs/filter-pattern.ts';
import { readBody } from '../../local/read-body.ts';

const T0 = Date.parse('2015-11-23T20:00:00.000Z');
let server: Server;
let logs: CloudWatchLogsClient;

const json = (level: string, msg: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ level, msg, ...extra });

beforeAll(async () => {
  const api = createLogsApiHandler(new LogsService());
  server = createServer((req, res) => void readBody(req).then((body) => api(req, res, body)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  logs = new CloudWatchLogsClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  await logs.send(new CreateLogGroupCommand({ logGroupName: '/ecs/api' }));
  for (const stream of ['web/1', 'web/2', 'worker/1'])
    await logs.send(new CreateLogStreamCommand({ logGroupName: '/ecs/api', logStreamName: stream }));
  // Minute by minute: web/1 answers, web/2 times out from minute 5, the worker ticks.
  for (let m = 0; m < 10; m++) {
    const t = T0 + m * 60_000;
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: '/ecs/api',
        logStreamName: 'web/1',
        logEvents: [{ timestamp: t, message: json('info', 'GET /orders 200', { latencyMs: 40 + m }) }],
      }),
    );
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: '/ecs/api',
        logStreamName: 'web/2',
        logEvents: [
          {
            timestamp: t + 1000,
            message:
              m >= 5
                ? json('error', 'upstream timed out', { latencyMs: 3000 })
                : json('info', 'GET /cart 200', { latencyMs: 20 }),
          },
        ],
      }),
    );
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: '/ecs/api',
        logStreamName: 'worker/1',
        logEvents: [
          { timestamp: t + 2000, message: `2015-11-23 WARN worker tick ${m} queue depth ${m * 3}` },
        ],
      }),
    );
  }
});

afterAll(async () => {
  logs.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('filter patterns', () => {
  it('needs every term, case-sensitively, anywhere in the message', () => {
    const match = compileFilterPattern('ERROR timeout');
    expect(match('ERROR: connect timeout')).toBe(true);
    expect(match('error: connect timeout')).toBe(false);
    expect(match('ERROR: refused')).toBe(false);
  });

  it('reads a quoted phrase as one term, ?terms as any of them and -terms as exclusions', () => {
    expect(compileFilterPattern('"timed out"')('upstream timed out')).toBe(true);
    expect(compileFilterPattern('"timed out"')('timed, then out')).toBe(false);
    expect(compileFilterPattern('?ERROR ?WARN')('WARN disk')).toBe(true);
    expect(compileFilterPattern('?ERROR ?WARN')('INFO disk')).toBe(false);
    expect(compileFilterPattern('ERROR -retry')('ERROR retry 2')).toBe(false);
    expect(compileFilterPattern('ERROR -retry')('ERROR fatal')).toBe(true);
  });

  it('matches JSON events by field with comparisons, && and ||', () => {
    const match = compileFilterPattern('{ $.level = "error" && $.latencyMs >= 1000 }');
    expect(match(json('error', 'x', { latencyMs: 3000 }))).toBe(true);
    expect(match(json('error', 'x', { latencyMs: 30 }))).toBe(false);
    expect(match('not json')).toBe(false);
    expect(compileFilterPattern('{ $.level = "err*" || $.level = "warn" }')(json('warn', 'x'))).toBe(true);
  });

  it('refuses the syntaxes it does not run instead of matching loosely', () => {
    expect(() => compileFilterPattern('[ip, user, status=5*]')).toThrow(/supports terms/);
    expect(() => compileFilterPattern('-retry')).toThrow(/positive term/);
    expect(() => compileFilterPattern('{ $.a ~ 1 }')).toThrow(/unsupported operator/);
  });
});

describe('FilterLogEvents through the SDK', () => {
  it('answers matching events of every stream interleaved by time, with both time bounds inclusive', async () => {
    const result = await logs.send(
      new FilterLogEventsCommand({
        logGroupName: '/ecs/api',
        filterPattern: '"timed out"',
        startTime: T0 + 6 * 60_000 + 1000,
        endTime: T0 + 8 * 60_000 + 1000,
      }),
    );
    expect(result.events?.map((e) => [e.timestamp, e.logStreamName])).toEqual([
      [T0 + 6 * 60_000 + 1000, 'web/2'],
      [T0 + 7 * 60_000 + 1000, 'web/2'],
      [T0 + 8 * 60_000 + 1000, 'web/2'],
    ]);
    expect(result.searchedLogStreams?.map((s) => s.logStreamName).sort()).toEqual([
      'web/1',
      'web/2',
      'worker/1',
    ]);
  });

  it('pages with nextToken until every event was returned once', async () => {
    const seen: number[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await logs.send(
        new FilterLogEventsCommand({ logGroupName: '/ecs/api', limit: 7, nextToken }),
      );
      seen.push(...(page.events ?? []).map((e) => e.timestamp ?? 0));
      nextToken = page.nextToken;
      pages++;
    } while (nextToken);
    expect(pages).toBe(5);
    expect(seen).toHaveLength(30);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('reads only the streams named or prefixed', async () => {
    const byPrefix = await logs.send(
      new FilterLogEventsCommand({ logGroupName: '/ecs/api', logStreamNamePrefix: 'web/' }),
    );
    expect(new Set(byPrefix.events?.map((e) => e.logStreamName))).toEqual(new Set(['web/1', 'web/2']));
    const named = await logs.send(
      new FilterLogEventsCommand({ logGroupName: '/ecs/api', logStreamNames: ['worker/1'] }),
    );
    expect(named.events).toHaveLength(10);
  });

  it('raises ResourceNotFoundException for a group that does not exist', async () => {
    await expect(logs.send(new FilterLogEventsCommand({ logGroupName: '/nope' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('still serves GetLogEvents from the head of a stream', async () => {
    const result = await logs.send(
      new GetLogEventsCommand({
        logGroupName: '/ecs/api',
        logStreamName: 'worker/1',
        startFromHead: true,
        limit: 2,
      }),
    );
    expect(result.events?.map((e) => e.message)).toEqual([
      '2015-11-23 WARN worker tick 0 queue depth 0',
      '2015-11-23 WARN worker tick 1 queue depth 3',
    ]);
  });
});

describe('Logs Insights through the SDK', () => {
  async function run(queryString: string, limit?: number) {
    const { queryId } = await logs.send(
      new StartQueryCommand({
        logGroupName: '/ecs/api',
        startTime: T0 / 1000,
        endTime: T0 / 1000 + 3600,
        queryString,
        ...(limit ? { limit } : {}),
      }),
    );
    const result = await logs.send(new GetQueryResultsCommand({ queryId }));
    expect(result.status).toBe('Complete');
    return {
      rows: (result.results ?? []).map((row) => Object.fromEntries(row.map((f) => [f.field, f.value]))),
      statistics: result.statistics,
    };
  }

  it('filters on discovered JSON fields and counts by time bin', async () => {
    const { rows, statistics } = await run(
      'filter level = "error" | stats count(*) as errors by bin(5m) | sort errors desc',
    );
    expect(rows).toEqual([{ 'bin(5m)': '2015-11-23 20:05:00.000', errors: '5' }]);
    expect(statistics?.recordsMatched).toBe(5);
    expect(statistics?.recordsScanned).toBe(30);
  });

  it('returns the newest events first with the fields asked for, up to the limit', async () => {
    const { rows } = await run(
      'fields @timestamp, @message, @logStream | filter @message like /tick/ | limit 2',
    );
    expect(rows.map((r) => [r['@timestamp'], r['@logStream']])).toEqual([
      ['2015-11-23 20:09:02.000', 'worker/1'],
      ['2015-11-23 20:08:02.000', 'worker/1'],
    ]);
    expect(rows[0]?.['@ptr']).toBeDefined();
  });

  it('aggregates a numeric field per group', async () => {
    const { rows } = await run(
      'stats avg(latencyMs) as avg, max(latencyMs) as max by level | sort level asc',
    );
    expect(rows).toEqual([
      { level: 'error', avg: '3000', max: '3000' },
      { level: 'info', avg: String((10 * 44.5 + 5 * 20) / 15), max: '49' },
    ]);
  });

  it('refuses a command it does not run with MalformedQueryException and where it stopped', async () => {
    const error = await logs
      .send(
        new StartQueryCommand({
          logGroupName: '/ecs/api',
          startTime: 0,
          endTime: 1,
          queryString: 'fields @message | parse @message "* *" as a, b',
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedQueryException);
    expect((error as MalformedQueryException).queryCompileError?.location).toEqual({
      startCharOffset: 18,
      endCharOffset: 23,
    });
    expect((error as Error).message).toMatch(/unsupported command parse/);
  });
});

describe('a Logs Insights query that is still running', () => {
  it('answers Running until it has been polled runningPolls times, and the SDK adapter waits for Complete', async () => {
    const service = new LogsService(undefined, { runningPolls: 2 });
    service.logs.put('/ecs/slow', 'a', { timestamp: T0, message: 'ERROR one' });
    const api = createLogsApiHandler(service);
    const slow = createServer((req, res) => void readBody(req).then((body) => api(req, res, body)));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const client = new CloudWatchLogsClient({
      endpoint: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const sleeps: number[] = [];
    try {
      const source = new CloudWatchLogsSource(client, {
        insightsTimeoutMs: 5000,
        pollMs: 7,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      });
      const rows = await source.insights({
        logGroups: ['/ecs/slow'],
        queryString: 'stats count(*) as n',
        start: T0,
        end: T0 + 1000,
        limit: 10,
      });
      expect(rows.rows).toEqual([{ n: '1' }]);
      expect(sleeps).toEqual([7, 7]);
    } finally {
      client.destroy();
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});
