import { afterEach, describe, expect, it, vi } from 'vitest';
import { powertoolsMetricsSink } from '../../lambdas/workflows/incident-investigation/adapters/metrics-sink.ts';
import type { IncidentRecord } from '../../lambdas/workflows/incident-investigation/record.ts';
import { firstNodes, type HypothesisNode } from '../../lambdas/workflows/incident-investigation/tree.ts';
import { finishedMetrics } from './finished-metrics.ts';

/** The AgentMetrics of one investigation: computed from what is stored, emitted as EMF. */

const emitted: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  emitted.length = 0;
});

const first = firstNodes({
  hypotheses: ['a', 'b', 'c'].map((statement, i) => ({
    statement,
    category: 'dependency' as const,
    priority: i + 1,
    confirming_evidence: 'c',
    refuting_evidence: 'r',
    suggested_queries: [],
  })),
});
const nodes: HypothesisNode[] = [
  ...first.map((n, i) => ({ ...n, status: i === 0 ? ('branched' as const) : ('pruned' as const) })),
  {
    ...(first[0] as HypothesisNode),
    id: 'H1.1',
    parentId: 'H1',
    depth: 2,
    status: 'confirmed',
    createdRound: 1,
    closedAt: '2015-01-01T00:05:00.000Z',
  },
];
const record: IncidentRecord = {
  startedAt: '2015-01-01T00:00:00.000Z',
  channel: 'C',
  threadTs: '1.0',
  roundsDone: 2,
  rounds: [],
  progress: {},
  plan: {
    steps: [
      {
        index: 0,
        action: 'a',
        parameters: {},
        riskLevel: 'medium',
        requiresApproval: true,
        notes: [],
        status: 'succeeded',
        approval: { decision: 'approve', by: 'U1', at: 't', messageTs: '2' },
      },
      {
        index: 1,
        action: 'b',
        parameters: {},
        riskLevel: 'medium',
        requiresApproval: true,
        notes: [],
        status: 'rejected',
        approval: { decision: 'reject', by: 'U1', at: 't', messageTs: '3' },
      },
    ],
    estimatedRecoveryTime: '5m',
    monitoring: [],
    matchedRunbooks: [],
    status: 'stopped',
  },
};

describe('incident metrics', () => {
  it('counts the tree, the approvals and the time to the first confirmation, stores and emits them', async () => {
    const { metrics, stored, emitted } = await finishedMetrics({
      record,
      nodes,
      toolCalls: 7,
      peopleMessages: 2,
    });
    expect(metrics).toEqual({
      hypothesesFormed: 4,
      hypothesesPruned: 2,
      hypothesesConfirmed: 1,
      averageDepth: 1.25,
      maxDepth: 2,
      rounds: 2,
      toolCallsPerInvestigation: 7,
      findingsDropped: 0,
      timeToRootCause: 300,
      approvalsRequested: 2,
      approvalsGranted: 1,
      clarificationsNeeded: 2,
      outcome: 'none',
    });
    expect(stored).toEqual([{ metrics, finishedAt: '2015-01-01T01:00:00.000Z' }]);
    expect(emitted).toEqual([[metrics, { outcome: 'none' }]]);
  });

  it('emits them as CloudWatch metrics in the SlackAgents namespace, service incident_investigation', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    // Powertools writes EMF with the global console in dev mode, else to stdout.
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      emitted.push(String(line));
    });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      emitted.push(String(chunk));
      return true;
    });
    const { metrics } = await finishedMetrics({ record, nodes, toolCalls: 7, peopleMessages: 2 });
    powertoolsMetricsSink().emit(metrics, { outcome: 'root_cause' });
    const [emf] = emitted
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((r) => '_aws' in r);
    expect(emf).toMatchObject({
      service: 'incident_investigation',
      outcome: 'root_cause',
      hypothesesFormed: 4,
      approvalsGranted: 1,
      timeToRootCause: 300,
      _aws: { CloudWatchMetrics: [{ Namespace: 'SlackAgents' }] },
    });
  });
});
