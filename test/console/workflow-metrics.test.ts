import { describe, expect, it } from 'vitest';
import { metricTiles } from '../../console/src/workflow-metrics.ts';
import type { IncidentRecord } from '../../lambdas/workflows/incident-investigation/record.ts';
import { finishedMetrics } from '../workflows/finished-metrics.ts';

/** The ledger's tiles for a workflow's own metrics, from what the incident workflow really computes. */
describe('workflow metrics in the ledger', () => {
  it('shows each AgentMetrics figure of an investigation as a labelled tile', async () => {
    const record = {
      startedAt: '2015-11-23T10:00:00.000Z',
      channel: 'C',
      threadTs: '1.0',
      roundsDone: 2,
      rounds: [],
      progress: {},
    } as unknown as IncidentRecord;
    const { metrics } = await finishedMetrics({ record, nodes: [], toolCalls: 7, peopleMessages: 1 });

    const tiles = metricTiles(metrics);

    expect(tiles).toContainEqual({ label: 'rounds', value: '2', testId: 'metric-rounds' });
    expect(tiles).toContainEqual({
      label: 'tool calls',
      value: '7',
      testId: 'metric-toolCallsPerInvestigation',
    });
    expect(tiles).toContainEqual({
      label: 'clarifications',
      value: '1',
      testId: 'metric-clarificationsNeeded',
    });
    expect(tiles).toContainEqual({ label: 'outcome', value: 'none', testId: 'metric-outcome' });
    expect(tiles.map((t) => t.label)).not.toContain('time to root cause');
  });

  it('reads the time to root cause in seconds, a word with underscores as words, and an unknown name as words', () => {
    expect(metricTiles({ timeToRootCause: 1260, outcome: 'root_cause', newThing: 3 })).toEqual([
      { label: 'time to root cause', value: '1,260 s', testId: 'metric-timeToRootCause' },
      { label: 'outcome', value: 'root cause', testId: 'metric-outcome' },
      { label: 'new thing', value: '3', testId: 'metric-newThing' },
    ]);
  });

  it('adds no tile for a conversation without workflow metrics', () => {
    expect(metricTiles(undefined)).toEqual([]);
  });
});
