import { describe, expect, it } from 'vitest';
import { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import type { CallDeps } from '../../lambdas/workflows/incident-investigation/telemetry/deps.ts';
import { queryLogs } from '../../lambdas/workflows/incident-investigation/telemetry/query-logs.ts';
import type {
  FetchedLogEvent,
  InsightsRows,
} from '../../lambdas/workflows/incident-investigation/telemetry/sources.ts';
import { QueryLogsArgs } from '../../lambdas/workflows/incident-investigation/telemetry/tools.ts';
import { fakeValues } from '../redaction/fake-values.ts';

const NOW = Date.parse('2015-11-23T22:00:00.000Z');
const token = fakeValues().githubToken;

/** What query_logs answers for checkout's logs, read from a source that holds `events` and answers `rows`. */
async function queryLogsOf(args: unknown, events: FetchedLogEvent[], rows: InsightsRows['rows'] = []) {
  const deps = {
    config: TelemetryConfig.parse({
      services: [{ name: 'checkout', logGroups: ['/ecs/checkout'] }],
      outputTokenBudget: 200,
    }),
    logs: {
      cloudwatch: {
        name: 'cloudwatch',
        filter: async () => ({ events, truncated: false }),
        insights: async () => ({ rows }),
      },
    },
    metrics: {},
    now: () => NOW,
    reserve: async () => {},
  } as unknown as CallDeps;
  return (
    await queryLogs(QueryLogsArgs.parse({ service: 'checkout', lastMinutes: 30, ...(args as object) }), deps)
  ).output;
}

describe('query_logs cuts outside secrets', () => {
  it('cuts an example line before a token that straddles its 300 characters, leaving no part of it', async () => {
    // Cut at 299 characters, the example kept the token's first 19 characters, which no rule matches.
    const head = `ERROR deploy hook failed ${'z'.repeat(254)} with `;
    const message = `${head}${token} for the release`;
    const output = await queryLogsOf({}, [{ timestamp: NOW - 60_000, message, service: 'checkout' }]);

    expect(output).toContain(`- 2015-11-23T21:59:00.000Z ${head}…`);
    expect(output).not.toContain(token.slice(0, 6));
  });

  it('cuts its output to the budget before a token that straddles it, leaving no part of it', async () => {
    // The budget is 800 characters less the note saying so; the padding puts the cut 20
    // characters into the token.
    const stats = { insightsQuery: 'stats count(*) by note' };
    const probe = await queryLogsOf(stats, [], [{ note: '' }]);
    const at = 200 * 4 - '\n(cut to fit the output budget)'.length;
    const padding = `${'p'.repeat(at - probe.length - 21)} `;

    const output = await queryLogsOf(stats, [], [{ note: `${padding}${token} ${'e'.repeat(100)}` }]);

    expect(output).toBe(`${probe}${padding}\n(cut to fit the output budget)`);
  });
});
