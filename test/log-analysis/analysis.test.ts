import { describe, expect, it } from 'vitest';
import { detectAnomalies } from '../../lambdas/log-analysis/anomalies.ts';
import { correlateEvents, extractTraceId } from '../../lambdas/log-analysis/correlation.ts';
import { extractErrorPatterns, isErrorLike } from '../../lambdas/log-analysis/error-patterns.ts';
import { parseLine } from '../../lambdas/log-analysis/headers.ts';
import { mineRecords } from '../../lambdas/log-analysis/mine.ts';
import type { LogRecord } from '../../lambdas/log-analysis/records.ts';
import { buildTimeline } from '../../lambdas/log-analysis/timeline.ts';

const T0 = Date.parse('2024-05-01T10:00:00Z');
const MIN = 60_000;

function rec(
  minute: number,
  service: string,
  message: string,
  level: LogRecord['level'] = 'info',
): LogRecord {
  return { time: T0 + minute * MIN, service, message, level, raw: message };
}

describe('error patterns', () => {
  it('selects error-like lines by level and by wording', () => {
    expect(isErrorLike({ level: 'error', message: 'all good' })).toBe(true);
    expect(isErrorLike({ level: 'info', message: 'connection refused by 10.0.0.1' })).toBe(true);
    expect(isErrorLike({ level: 'info', message: 'request served' })).toBe(false);
  });

  it('gives per template the count, first and last seen, capped samples, services and level', () => {
    const records = [
      rec(0, 'api', 'timeout calling db after 30 s', 'warn'),
      rec(1, 'worker', 'timeout calling db after 31 s', 'error'),
      rec(2, 'api', 'timeout calling db after 32 s', 'warn'),
      rec(3, 'api', 'timeout calling db after 33 s', 'warn'),
      rec(4, 'api', 'request served in 3 ms'),
    ];
    const [pattern, ...rest] = extractErrorPatterns(records, mineRecords(records), { maxSamples: 2 });
    expect(rest).toEqual([]);
    expect(pattern).toEqual({
      pattern: 'timeout calling db after <*> s',
      templateId: expect.any(String),
      count: 4,
      firstSeen: '2024-05-01T10:00:00.000Z',
      lastSeen: '2024-05-01T10:03:00.000Z',
      sampleMessages: ['timeout calling db after 30 s', 'timeout calling db after 31 s'],
      affectedServices: ['api', 'worker'],
      level: 'error',
    });
  });
});

describe('anomalies', () => {
  const steady = Array.from({ length: 60 }, (_, m) => rec(m, 'api', `served request ${m} in 3 ms`));

  it('reports a spike with both rates and the increase', () => {
    const burst = Array.from({ length: 30 }, (_, i) =>
      rec(60 + i / 3, 'api', `retrying call ${i} to db`, 'warn'),
    );
    const before = Array.from({ length: 6 }, (_, i) => rec(i * 8, 'api', `retrying call ${i} to db`, 'warn'));
    const records = [...steady, ...before, ...burst];
    const spike = detectAnomalies(records, mineRecords(records), {
      now: T0 + 70 * MIN,
      windowMs: 10 * MIN,
    }).find((a) => a.type === 'spike');
    expect(spike).toMatchObject({
      template: 'retrying call <*> to db',
      currentRate: 3,
      baselineRate: 0.1,
      percentIncrease: 2900,
    });
    expect(spike?.timeWindow).toEqual({ start: '2024-05-01T11:00:00.000Z', end: '2024-05-01T11:10:00.000Z' });
  });

  it("reports a spike in a service's error rate as a whole", () => {
    const before = Array.from({ length: 6 }, (_, i) =>
      rec(i * 10, 'api', `timeout ${i} calling db`, 'error'),
    );
    const now = Array.from({ length: 20 }, (_, i) =>
      rec(60 + i / 4, 'api', `refused ${i} by cache`, 'error'),
    );
    const records = [...steady, ...before, ...now];
    const spike = detectAnomalies(records, mineRecords(records), {
      now: T0 + 70 * MIN,
      windowMs: 10 * MIN,
    }).find((a) => a.type === 'spike' && a.service === 'api');
    expect(spike).toMatchObject({
      currentRate: 2,
      baselineRate: 0.1,
      percentIncrease: 1900,
      severity: 'high',
    });
  });

  it('reports a new error: present now, absent from the baseline', () => {
    const records = [...steady, rec(61, 'db', 'disk /dev/sda1 failed', 'error')];
    const found = detectAnomalies(records, mineRecords(records), { now: T0 + 62 * MIN, windowMs: 5 * MIN });
    expect(found).toContainEqual(
      expect.objectContaining({
        type: 'new_error',
        count: 1,
        template: 'disk <*> failed',
        firstSeen: '2024-05-01T11:01:00.000Z',
      }),
    );
  });

  it('reports missing logs: a steady template that stopped, with last seen and interval', () => {
    const beats = Array.from({ length: 40 }, (_, m) => rec(m, 'cron', `heartbeat ${m}`));
    const found = detectAnomalies(beats, mineRecords(beats), { now: T0 + 55 * MIN, windowMs: 15 * MIN });
    expect(found).toContainEqual(
      expect.objectContaining({
        type: 'missing_logs',
        lastSeen: '2024-05-01T10:39:00.000Z',
        expectedIntervalMs: MIN,
      }),
    );
  });

  it('reports a pattern change in a template share of all lines', () => {
    const mix = [
      ...Array.from({ length: 40 }, (_, m) => rec(m, 'api', `GET /a ${m}`)),
      ...Array.from({ length: 20 }, (_, m) => rec(m, 'api', `cache hit key=${m}`)),
      ...Array.from({ length: 10 }, (_, i) => rec(50 + i, 'api', `cache hit key=${i}`)),
      ...Array.from({ length: 2 }, (_, i) => rec(50 + i, 'api', `GET /a ${i}`)),
    ];
    const found = detectAnomalies(mix, mineRecords(mix), { now: T0 + 60 * MIN, windowMs: 15 * MIN });
    expect(found).toContainEqual(
      expect.objectContaining({ type: 'pattern_change', template: 'cache hit key=<*>' }),
    );
  });

  it('reports nothing for a steady log', () => {
    expect(detectAnomalies(steady, mineRecords(steady), { windowMs: 15 * MIN })).toEqual([]);
  });
});

describe('correlation', () => {
  it('finds W3C traceparent, X-Ray roots and JSON trace_id fields', () => {
    const w3c = parseLine('traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 GET /');
    expect(extractTraceId(w3c)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const xray = parseLine('X-Amzn-Trace-Id: Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1');
    expect(extractTraceId(xray)).toBe('1-5759e988-bd862e3fe1be46a994272793');
    expect(extractTraceId(parseLine('{"msg":"x","trace_id":"abc123"}'))).toBe('abc123');
    expect(extractTraceId(parseLine('{"msg":"x","request_id":"r-9"}'))).toBe('r-9');
  });

  it('orders a trace, gives its propagation path and the earliest error as the root', () => {
    const records = [
      rec(3, 'api', 'request_id=r1 responded 500', 'error'),
      rec(1, 'api', 'request_id=r1 received GET /orders'),
      rec(2, 'auth', 'request_id=r1 token ok'),
      rec(2.5, 'db', 'request_id=r1 query timeout', 'error'),
      rec(2, 'api', 'request_id=r2 received GET /health'),
    ];
    const [first, second] = correlateEvents(records);
    expect(first?.traceId).toBe('r1');
    expect(first?.propagationPath).toEqual(['api', 'auth', 'db', 'api']);
    expect(first?.rootEvent).toEqual({
      service: 'db',
      message: 'request_id=r1 query timeout',
      timestamp: '2024-05-01T10:02:30.000Z',
    });
    expect(second).toMatchObject({ traceId: 'r2', propagationPath: ['api'] });
    expect(second?.rootEvent).toBeUndefined();
  });

  it('takes configured extractors instead of the defaults', () => {
    const records = [rec(0, 'a', 'order=O-1 placed'), rec(1, 'b', 'order=O-1 shipped')];
    const [group] = correlateEvents(records, { extractors: [{ name: 'order', pattern: /order=(\S+)/ }] });
    expect(group).toMatchObject({ traceId: 'O-1', propagationPath: ['a', 'b'] });
  });
});

describe('timeline', () => {
  it('merges services in time order, folds repeats and keeps first sightings and errors', () => {
    const records = [
      rec(0, 'api', 'served 1'),
      rec(1, 'api', 'served 2'),
      rec(0.5, 'db', 'replica lag 30 s', 'warn'),
      rec(0.7, 'db', 'replica lag 31 s', 'warn'),
      rec(5, 'db', 'replica lag 90 s', 'warn'),
    ];
    expect(buildTimeline(records, mineRecords(records))).toEqual([
      {
        timestamp: '2024-05-01T10:00:00.000Z',
        event: 'served <*>',
        service: 'api',
        severity: 'info',
        count: 1,
      },
      {
        timestamp: '2024-05-01T10:00:30.000Z',
        event: 'replica lag <*> s',
        service: 'db',
        severity: 'warn',
        count: 2,
      },
      {
        timestamp: '2024-05-01T10:05:00.000Z',
        event: 'replica lag <*> s',
        service: 'db',
        severity: 'warn',
        count: 1,
      },
    ]);
  });

  it('keeps the most severe entries past the cap, still in time order', () => {
    const records = [rec(0, 'a', 'boot'), rec(1, 'a', 'disk failed', 'error'), rec(2, 'a', 'ready')];
    expect(buildTimeline(records, mineRecords(records), { maxEntries: 1 }).map((e) => e.event)).toEqual([
      'disk failed',
    ]);
  });
});
