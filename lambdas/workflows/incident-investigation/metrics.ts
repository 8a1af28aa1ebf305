import type { ConversationStore } from '../../kernel/ports.ts';
import { IncidentNotFoundError } from './errors.ts';
import type { EvidenceLedger } from './investigation.ts';
import type { AgentMetrics, IncidentRecord, IncidentStore } from './record.ts';
import type { HypothesisNode, StoredEvaluation } from './tree.ts';

/**
 * The AgentMetrics per investigation, computed from what is stored (the tree, the
 * record, the evidence ledger, the thread's messages), kept on the incident's record and
 * emitted as CloudWatch metrics (embedded metric format, through the sink given).
 */

/** Where the metrics go (Powertools Metrics in the Lambda; a recorder in tests). */
export interface MetricsSink {
  emit(metrics: AgentMetrics, dimensions: { outcome: AgentMetrics['outcome'] }): void;
}

function computeMetrics(input: {
  record: IncidentRecord;
  nodes: readonly HypothesisNode[];
  toolCalls: number;
  peopleMessages: number;
}): AgentMetrics {
  const { record, nodes } = input;
  const confirmed = nodes.filter((n) => n.status === 'confirmed');
  const firstConfirmed = confirmed
    .map((n) => n.closedAt)
    .filter((at): at is string => at !== undefined)
    .sort()[0];
  const depths = nodes.map((n) => n.depth);
  const steps = record.plan?.steps ?? [];
  const requested = steps.filter((s) => s.approval !== undefined || s.status === 'not_run').length;
  const dropped = nodes
    .flatMap((n) => Object.values(n.evaluations))
    .filter((e): e is StoredEvaluation => 'action' in e)
    .reduce((sum, e) => sum + e.drops.filter((d) => d.dropped === 'finding').length, 0);
  return {
    hypothesesFormed: nodes.length,
    hypothesesPruned: nodes.filter((n) => n.status === 'pruned').length,
    hypothesesConfirmed: confirmed.length,
    averageDepth:
      depths.length === 0 ? 0 : Math.round((depths.reduce((a, b) => a + b, 0) / depths.length) * 100) / 100,
    maxDepth: depths.length === 0 ? 0 : Math.max(...depths),
    rounds: record.roundsDone,
    toolCallsPerInvestigation: input.toolCalls,
    findingsDropped: dropped + (record.conclusion?.drops.filter((d) => d.dropped === 'finding').length ?? 0),
    ...(firstConfirmed
      ? {
          timeToRootCause: Math.max(
            0,
            Math.round((Date.parse(firstConfirmed) - Date.parse(record.startedAt)) / 1000),
          ),
        }
      : {}),
    approvalsRequested: requested,
    approvalsGranted: steps.filter((s) => s.approval?.decision === 'approve').length,
    clarificationsNeeded: input.peopleMessages,
    outcome: record.conclusion?.outcome ?? 'none',
  };
}

/** Computes, stores and emits the investigation's metrics (once: a retry finds them stored). */
export async function finishInvestigation(
  input: { conversationId: string },
  deps: {
    incidents: IncidentStore;
    conversations: Pick<ConversationStore, 'listMessages'>;
    evidence: EvidenceLedger;
    sink: MetricsSink;
    now: () => Date;
  },
): Promise<AgentMetrics> {
  const record = await deps.incidents.getRecord(input.conversationId);
  if (record === undefined) throw new IncidentNotFoundError(input.conversationId);
  if (record.metrics !== undefined) return record.metrics;
  const nodes = await deps.incidents.listNodes(input.conversationId);
  const messages = await deps.conversations.listMessages(input.conversationId);
  const evidence = await deps.evidence.list(input.conversationId);
  // The opening message (the command or the alert) is not added context; button presses are not messages.
  const people = messages.filter((m) => m.messageType === 'message' && m.senderType !== 'bot').length;
  const metrics = computeMetrics({
    record,
    nodes,
    toolCalls: evidence.length,
    peopleMessages: Math.max(0, people - 1),
  });
  await deps.incidents.updateRecord(input.conversationId, { metrics, finishedAt: deps.now().toISOString() });
  deps.sink.emit(metrics, { outcome: metrics.outcome });
  return metrics;
}
