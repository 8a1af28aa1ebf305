import type { CloudFormationClient, StackEvent } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { CloudFormationDeployments } from '../../lambdas/workflows/incident-investigation/telemetry/cloudformation-deployments.ts';
import { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import { isoMinute } from '../../lambdas/workflows/incident-investigation/telemetry/deps.ts';
import { QueryRefusedError } from '../../lambdas/workflows/incident-investigation/telemetry/errors.ts';
import { queryMetrics } from '../../lambdas/workflows/incident-investigation/telemetry/query-metrics.ts';
import { QueryMetricsArgs } from '../../lambdas/workflows/incident-investigation/telemetry/tools.ts';
import {
  requireService,
  resolveWindow,
} from '../../lambdas/workflows/incident-investigation/telemetry/window.ts';

const NOW = Date.parse('2015-11-23T22:00:00.000Z');
const config = TelemetryConfig.parse({
  services: [{ name: 'checkout' }],
  maxWindowMinutes: 120,
  defaultWindowMinutes: 30,
});

describe('query windows', () => {
  it('defaults to the last defaultWindowMinutes before now', () => {
    expect(resolveWindow({}, config, NOW)).toEqual({ start: NOW - 30 * 60_000, end: NOW });
  });

  it('ends a window that reaches into the future now, and says so', () => {
    const window = resolveWindow(
      { since: '2015-11-23T21:30:00Z', until: '2015-11-23T23:00:00Z' },
      config,
      NOW,
    );
    expect(window).toEqual({
      start: NOW - 30 * 60_000,
      end: NOW,
      note: 'until is in the future: the window ends now',
    });
  });

  // Regression: isQueryTooBroad returned the missing service alone, so a window checked without one was never narrowed.
  it('narrows a window wider than the maximum to its latest part', () => {
    const window = resolveWindow({ until: '2015-11-23T21:00:00Z', lastMinutes: 600 }, config, NOW);
    expect(window.start).toBe(Date.parse('2015-11-23T19:00:00Z'));
    expect(window.end).toBe(Date.parse('2015-11-23T21:00:00Z'));
    expect(window.note).toMatch(
      /^narrowed: the window asked for is 600 minutes, wider than the maximum of 120/,
    );
  });

  it('refuses since together with lastMinutes', () => {
    expect(() => resolveWindow({ since: '2015-11-23T21:00:00Z', lastMinutes: 5 }, config, NOW)).toThrow(
      QueryRefusedError,
    );
  });

  it('refuses a query without a service as too broad, and narrows a wide one whether or not it names one', () => {
    const unnamed = () => requireService(config, undefined);
    expect(unnamed).toThrow(QueryRefusedError);
    expect(unnamed).toThrow(/^too broad: a query must name one service \(checkout\)$/);
    expect(resolveWindow({ lastMinutes: 10 }, config, NOW)).toEqual({ start: NOW - 10 * 60_000, end: NOW });
    expect(resolveWindow({ lastMinutes: 500 }, config, NOW).note).toMatch(
      /^narrowed: the window asked for is 500 minutes, wider than the maximum of 120, /,
    );
    expect(resolveWindow({ service: 'checkout', lastMinutes: 121 }, config, NOW).note).toMatch(
      /^narrowed: the window asked for is 121 minutes, /,
    );
    expect(requireService(config, 'checkout')).toMatchObject({ name: 'checkout' });
    expect(resolveWindow({ service: 'checkout', lastMinutes: 120 }, config, NOW)).toEqual({
      start: NOW - 120 * 60_000,
      end: NOW,
    });
  });
});

describe('level shifts in a metric series', () => {
  /** A point a minute, the last one a minute before now. */
  const minutes = (count: number) => Array.from({ length: count }, (_, i) => NOW - (count - i) * 60_000);

  /** What query_metrics answers for one series of checkout's: its text, and the summary the ledger keeps. */
  async function answer(name: string, timestamps: number[], values: number[]) {
    const outcome = await queryMetrics(QueryMetricsArgs.parse({ service: 'checkout', lastMinutes: 60 }), {
      config: TelemetryConfig.parse({
        services: [{ name: 'checkout', metrics: { namespace: 'Shop', names: [name] } }],
        maxWindowMinutes: 120,
        defaultWindowMinutes: 30,
      }),
      metrics: { cloudwatch: { name: 'cloudwatch', get: async () => [{ name, timestamps, values }] } },
      logs: {},
      now: () => NOW,
      reserve: async () => {},
    } as unknown as Parameters<typeof queryMetrics>[1]);
    return { text: outcome.output, summary: outcome.evidence.summary };
  }

  /** Where the answer places the largest level shift of `values`, or undefined when it names none. */
  async function shiftAt(values: number[]) {
    const timestamps = minutes(values.length);
    const { text } = await answer('Errors', timestamps, values);
    const at = /Largest level shift at (\S+):/.exec(text)?.[1];
    return at === undefined ? undefined : timestamps.findIndex((t) => isoMinute(t) === at);
  }

  it('finds where a flat series steps up', async () => {
    const values = [10, 11, 9, 10, 10, 11, 95, 100, 98, 102];
    expect(await shiftAt(values)).toBe(6);
  });

  it('finds none in noise around one level, nor in a series too short to tell', async () => {
    expect(await shiftAt([10, 14, 9, 13, 8, 12, 10, 14, 9, 13])).toBeUndefined();
    expect(await shiftAt([1, 1, 100, 100])).toBeUndefined();
  });

  it('describes a series by range, shift and a downsampled line', async () => {
    const timestamps = minutes(48);
    const values = timestamps.map((_, i) => (i < 30 ? 200 : 6000));
    const { text, summary } = await answer('LatencyMs', timestamps, values);
    expect(text).toContain('LatencyMs: 48 points, min 200, mean 2375, max 6000 at 2015-11-23T21:42Z.');
    expect(text).toContain('Largest level shift at 2015-11-23T21:42Z: mean 200 before, 6000 after (+2900%).');
    expect(text).toMatch(/Series \(mean of every 2 points\): 21:12 200, .* 21:58 6000$/);
    expect(summary).toBe(
      'LatencyMs max 6000 at 2015-11-23T21:42Z; shift at 2015-11-23T21:42Z from 200 to 6000',
    );
  });
});

describe('deployments from stack events', () => {
  const at = (minute: number) => new Date(NOW - (60 - minute) * 60_000);
  const stackEvent = (minute: number, status: string, reason?: string): StackEvent => ({
    StackName: 'api-prod',
    StackId: 'id',
    EventId: `${minute}${status}`,
    LogicalResourceId: 'api-prod',
    ResourceType: 'AWS::CloudFormation::Stack',
    ResourceStatus: status as never,
    Timestamp: at(minute),
    ...(reason ? { ResourceStatusReason: reason } : {}),
  });
  /** The deployments CloudFormation records for stack api-prod, whose events are `events` (one page). */
  const deploymentsOf = (events: StackEvent[], range: { start: number; end: number }) => {
    const client = { send: async () => ({ StackEvents: events }) } as unknown as CloudFormationClient;
    return new CloudFormationDeployments(client).list(['api-prod'], range);
  };
  const resourceEvent = (minute: number, id: string, status: string, physical?: string): StackEvent => ({
    StackName: 'api-prod',
    StackId: 'id',
    EventId: `${minute}${id}${status}`,
    LogicalResourceId: id,
    ResourceType: 'AWS::ECS::Service',
    ResourceStatus: status as never,
    Timestamp: at(minute),
    ...(physical ? { PhysicalResourceId: physical } : {}),
  });

  it('groups an update from its start to its final stack status, with the resources it changed, latest first', async () => {
    const events = [
      stackEvent(10, 'UPDATE_IN_PROGRESS', 'User Initiated'),
      resourceEvent(11, 'Service', 'UPDATE_IN_PROGRESS'),
      resourceEvent(14, 'Service', 'UPDATE_COMPLETE', 'svc-arn'),
      stackEvent(15, 'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS'),
      stackEvent(16, 'UPDATE_COMPLETE'),
      stackEvent(40, 'UPDATE_IN_PROGRESS', 'User Initiated'),
      resourceEvent(41, 'Service', 'UPDATE_FAILED'),
      stackEvent(42, 'UPDATE_ROLLBACK_IN_PROGRESS', 'The following resource(s) failed to update: [Service].'),
      stackEvent(45, 'UPDATE_ROLLBACK_COMPLETE'),
    ].reverse();
    const deployments = await deploymentsOf(events, { start: at(0).getTime(), end: NOW });
    expect(deployments).toEqual([
      {
        stack: 'api-prod',
        started: at(40).getTime(),
        finished: at(45).getTime(),
        status: 'UPDATE_ROLLBACK_COMPLETE',
        reason: 'The following resource(s) failed to update: [Service].',
        changes: [{ logicalId: 'Service', type: 'AWS::ECS::Service', status: 'UPDATE_FAILED' }],
      },
      {
        stack: 'api-prod',
        started: at(10).getTime(),
        finished: at(16).getTime(),
        status: 'UPDATE_COMPLETE',
        reason: 'User Initiated',
        changes: [
          {
            logicalId: 'Service',
            type: 'AWS::ECS::Service',
            physicalId: 'svc-arn',
            status: 'UPDATE_COMPLETE',
          },
        ],
      },
    ]);
  });

  it('keeps only deployments that started in the window, and one still running without an end', async () => {
    const events = [
      stackEvent(5, 'UPDATE_IN_PROGRESS'),
      stackEvent(9, 'UPDATE_COMPLETE'),
      stackEvent(50, 'UPDATE_IN_PROGRESS'),
    ];
    const deployments = await deploymentsOf(events, { start: at(30).getTime(), end: NOW });
    expect(deployments).toEqual([
      { stack: 'api-prod', started: at(50).getTime(), status: 'UPDATE_IN_PROGRESS', changes: [] },
    ]);
  });
});
