import type { StoredMessage } from '../../lambdas/kernel/model.ts';
import type { EvidenceRecord } from '../../lambdas/workflows/incident-investigation/evidence.ts';
import {
  finishInvestigation,
  type MetricsSink,
} from '../../lambdas/workflows/incident-investigation/metrics.ts';
import type {
  AgentMetrics,
  IncidentRecord,
  IncidentStore,
} from '../../lambdas/workflows/incident-investigation/record.ts';
import type { HypothesisNode } from '../../lambdas/workflows/incident-investigation/tree.ts';

/**
 * An investigation finished by `finishInvestigation` over stores in memory: `record` and
 * `nodes` as stored, `toolCalls` evidence records in the ledger, and the thread's opening
 * message followed by `peopleMessages` more from people. Returns the metrics it computed with
 * what it stored on the record and emitted.
 */
export async function finishedMetrics(input: {
  record: IncidentRecord;
  nodes: readonly HypothesisNode[];
  toolCalls: number;
  peopleMessages: number;
}): Promise<{
  metrics: AgentMetrics;
  stored: Partial<IncidentRecord>[];
  emitted: Parameters<MetricsSink['emit']>[];
}> {
  const stored: Partial<IncidentRecord>[] = [];
  const emitted: Parameters<MetricsSink['emit']>[] = [];
  const incidents = {
    getRecord: async () => structuredClone(input.record),
    listNodes: async () => structuredClone([...input.nodes]),
    updateRecord: async (_: string, fields: Partial<IncidentRecord>) => {
      stored.push(fields);
    },
  } as unknown as IncidentStore;
  const messages = Array.from(
    { length: input.peopleMessages + 1 },
    (_, i): StoredMessage => ({
      conversationId: 'c',
      ts: `1700000000.00000${i}`,
      channel: 'C',
      senderType: 'participant',
      senderId: 'U1',
      messageType: 'message',
      text: i === 0 ? 'the opening message' : 'more context',
      receivedAt: '2015-01-01T00:00:00.000Z',
    }),
  );
  const evidence = Array.from(
    { length: input.toolCalls },
    (_, i): EvidenceRecord => ({ id: `ev-${i + 1}`, tool: 'query_logs', source: 'logs', summary: '' }),
  );
  const metrics = await finishInvestigation(
    { conversationId: 'c' },
    {
      incidents,
      conversations: { listMessages: async () => messages },
      evidence: { list: async () => evidence },
      sink: { emit: (...args) => emitted.push(args) },
      now: () => new Date('2015-01-01T01:00:00.000Z'),
    },
  );
  return { metrics, stored, emitted };
}
