import type { ConversationStore } from '../../kernel/ports.ts';
import { formatUsd, microUsd } from '../../shared/money.ts';
import type { InvestigationConfig } from './config.ts';
import type { ConclusionResult, EvaluationResult, HypothesesResult, TriageResult } from './contract.ts';
import { IncidentNotFoundError } from './errors.ts';
import {
  capLevel,
  checkFindings,
  type EvidenceRecord,
  judgeEvaluation,
  supportingSources,
} from './evidence.ts';
import type { IncidentRecord, IncidentStore, StoredConclusion } from './record.ts';
import {
  CONCLUDE_REASONS,
  decideRound,
  firstNodes,
  type HypothesisNode,
  mergeRound,
  openInOrder,
  type StoredEvaluation,
} from './tree.ts';

/**
 * The investigation's record keeping, one function per task of the state machine: start,
 * triage, hypotheses, the plan of each round (or why the rounds end), each evaluation after
 * the evidence rules, the merge of a round into the tree, and the conclusion.
 */

/** Reads the evidence ledger of a conversation (the data tools write it). */
export interface EvidenceLedger {
  list(conversationId: string): Promise<EvidenceRecord[]>;
}

export interface InvestigationDeps {
  incidents: IncidentStore;
  conversations: Pick<ConversationStore, 'getConversation'>;
  evidence: EvidenceLedger;
  config: InvestigationConfig;
  now: () => Date;
}

async function requireRecord(deps: InvestigationDeps, conversationId: string): Promise<IncidentRecord> {
  const record = await deps.incidents.getRecord(conversationId);
  if (record === undefined) throw new IncidentNotFoundError(conversationId);
  return record;
}

async function ledgerOf(deps: InvestigationDeps, conversationId: string) {
  return new Map((await deps.evidence.list(conversationId)).map((e) => [e.id, e]));
}

export async function startIncident(
  input: { conversationId: string; channel: string; threadTs: string },
  deps: InvestigationDeps,
): Promise<{ startedAt: string }> {
  const startedAt = deps.now().toISOString();
  await deps.incidents.createRecord(input.conversationId, {
    startedAt,
    channel: input.channel,
    threadTs: input.threadTs,
    roundsDone: 0,
    rounds: [],
    progress: {},
  });
  const record = await requireRecord(deps, input.conversationId);
  return { startedAt: record.startedAt };
}

export async function recordTriage(
  input: { conversationId: string; result: TriageResult },
  deps: InvestigationDeps,
): Promise<{ severity: string; services: number }> {
  await deps.incidents.updateRecord(input.conversationId, { triage: input.result });
  return { severity: input.result.severity, services: input.result.affected_services.length };
}

export async function recordHypotheses(
  input: { conversationId: string; result: HypothesesResult },
  deps: InvestigationDeps,
): Promise<{ formed: number }> {
  const nodes = firstNodes(input.result);
  await deps.incidents.putNodes(input.conversationId, nodes);
  return { formed: nodes.length };
}

/** One hypothesis of a round, as the Map hands it to an iteration (small: ids and notes). */
export interface RoundItem {
  hypothesisId: string;
  round: number;
  /** The iteration's own turn number: its Drain and its agent turn (distinct per iteration). */
  turn: number;
  /** The data tools' query budget scope (`round-2:h1.2`): at most 5 queries per hypothesis per round. */
  scope: string;
  sessionId?: string;
  notes: string[];
}

export type RoundPlan =
  | { decision: 'investigate'; round: number; items: RoundItem[]; nextTurn: number }
  | { decision: 'conclude'; reason: string; notes: string[] }
  /** The owner asked to stop (a close intent in the thread): no round, no conclusion. */
  | { decision: 'closed' };

/**
 * The next round's hypotheses, or why the rounds end (until one is confirmed, all
 * are pruned, or the round, time or cost budget is spent). Each item gets its own turn
 * number after `turn`, so parallel iterations drain pending messages apart (I3).
 */
export async function planRound(
  input: { conversationId: string; turn: number },
  deps: InvestigationDeps,
): Promise<RoundPlan> {
  const record = await requireRecord(deps, input.conversationId);
  const nodes = await deps.incidents.listNodes(input.conversationId);
  const conversation = await deps.conversations.getConversation(input.conversationId, { consistent: true });
  if (conversation?.closeRequested === true) return { decision: 'closed' };
  const tokens = (conversation?.ledger?.inputTokens ?? 0) + (conversation?.ledger?.outputTokens ?? 0);
  const costMicroUsd = conversation?.ledger?.costMicroUsd ?? 0;
  const { budget } = deps.config;
  const decision = decideRound(
    nodes,
    {
      roundsDone: record.roundsDone,
      startedAt: record.startedAt,
      tokens,
      costMicroUsd,
      nowMs: deps.now().getTime(),
    },
    budget,
  );
  if (decision.decision === 'conclude') {
    const because = CONCLUDE_REASONS[decision.reason];
    await deps.incidents.updateRecord(input.conversationId, { concludedBecause: decision.reason });
    return {
      decision: 'conclude',
      reason: decision.reason,
      notes: conclusionNotes(nodes, because, { tokens, costMicroUsd }, budget),
    };
  }
  const round = record.roundsDone + 1;
  const items = openInOrder(nodes)
    .slice(0, deps.config.maxHypothesesPerRound)
    .map(
      (node, index): RoundItem => ({
        hypothesisId: node.id,
        round,
        turn: input.turn + index + 1,
        scope: `round-${round}:${node.id.toLowerCase()}`,
        ...(node.sessionId ? { sessionId: node.sessionId } : {}),
        notes: investigatorNotes(node, nodes, record, round, budget.maxRounds),
      }),
    );
  return { decision: 'investigate', round, items, nextTurn: input.turn + items.length };
}

function investigatorNotes(
  node: HypothesisNode,
  nodes: readonly HypothesisNode[],
  record: IncidentRecord,
  round: number,
  maxRounds: number,
): string[] {
  const parent = node.parentId ? nodes.find((n) => n.id === node.parentId) : undefined;
  const earlier = Object.values(node.evaluations)
    .filter((e): e is StoredEvaluation => 'action' in e)
    .map((e) => `round ${e.round}: ${e.strength}, ${e.action} (${e.reasoning.slice(0, 200)})`);
  const triage = record.triage;
  return [
    `You investigate hypothesis ${node.id} (${node.category}, priority ${node.priority}) in round ${round} of at most ${maxRounds}: ${node.statement}`,
    `It is confirmed by: ${node.confirmingEvidence}. It is refuted by: ${node.refutingEvidence}.`,
    ...(parent ? [`It refines ${parent.id}: ${parent.statement.slice(0, 300)}`] : []),
    ...(node.suggestedQueries.length > 0
      ? [
          `Suggested queries: ${node.suggestedQueries
            .map((q) => `${q.tool} (${q.purpose})`)
            .join('; ')
            .slice(0, 600)}`,
        ]
      : []),
    ...(triage
      ? [
          `Incident window ${triage.time_window.start} to ${triage.time_window.end}; affected services: ${triage.affected_services.join(', ')}.`,
        ]
      : []),
    ...(earlier.length > 0 ? [`Your earlier evaluations: ${earlier.join('; ').slice(0, 800)}`] : []),
    `Submit with hypothesis_id "${node.id}". Every finding must cite evidence ids from the data tools' results in this investigation; code drops uncited findings, refuses confirm or branch without a strong cited finding, and caps confidence by the number of distinct sources.`,
  ];
}

function conclusionNotes(
  nodes: readonly HypothesisNode[],
  because: string,
  spent: { tokens: number; costMicroUsd: number },
  budget: InvestigationConfig['budget'],
): string[] {
  const money =
    budget.maxCostUsd === undefined
      ? ''
      : `, cost ${formatUsd(spent.costMicroUsd)} of ${formatUsd(microUsd(budget.maxCostUsd))}`;
  // Each node with the findings code kept, and their evidence ids: the conclusion cites them.
  const tree = nodes
    .map((n) => {
      const last = Object.values(n.evaluations)
        .filter((e): e is StoredEvaluation => 'action' in e)
        .sort((a, b) => b.round - a.round)[0];
      const findings = (last?.findings ?? [])
        .map((f) => `  finding (${f.strength}): ${f.finding.slice(0, 200)} [${f.evidenceIds.join(', ')}]`)
        .join('\n');
      return `${n.id} [${n.status}, confidence ${n.confidence}]: ${n.statement.slice(0, 200)}${findings ? `\n${findings}` : ''}`;
    })
    .join('\n');
  return [
    `The rounds ended because ${because} (tokens used ${spent.tokens} of ${budget.maxTokens}${money}).`,
    `The hypothesis tree:\n${tree}`.slice(0, 6_000),
    'Conclude: root_cause only for a confirmed hypothesis, citing its evidence ids; otherwise inconclusive, listing the gaps. Code checks both.',
  ];
}

export async function recordEvaluation(
  input: {
    conversationId: string;
    hypothesisId: string;
    round: number;
    sessionId?: string;
    result?: EvaluationResult;
    error?: string;
  },
  deps: InvestigationDeps,
): Promise<{ hypothesisId: string; action: string; strength: string; dropped: number }> {
  const at = deps.now().toISOString();
  const nodes = await deps.incidents.listNodes(input.conversationId);
  const node = nodes.find((n) => n.id === input.hypothesisId);
  if (node === undefined)
    throw new IncidentNotFoundError(`${input.conversationId} (hypothesis ${input.hypothesisId})`);
  if (input.result === undefined) {
    const failed = input.error ?? 'the investigating turn ended without an evaluation';
    await deps.incidents.setEvaluation(
      input.conversationId,
      node.id,
      input.round,
      { round: input.round, failed, at },
      input.sessionId,
    );
    return { hypothesisId: node.id, action: 'none', strength: 'none', dropped: 0 };
  }
  const judged = judgeEvaluation(input.result, await ledgerOf(deps, input.conversationId), {
    canBranch: node.depth < deps.config.maxDepth,
  });
  if (input.result.hypothesis_id !== node.id) {
    judged.adjustments.push(`filed under ${node.id}: the evaluation named ${input.result.hypothesis_id}`);
  }
  const stored: StoredEvaluation = { round: input.round, ...judged, at };
  await deps.incidents.setEvaluation(input.conversationId, node.id, input.round, stored, input.sessionId);
  return {
    hypothesisId: node.id,
    action: judged.action,
    strength: judged.strength,
    dropped: judged.drops.filter((d) => d.dropped === 'finding').length,
  };
}

export async function mergeInvestigationRound(
  input: { conversationId: string; round: number },
  deps: InvestigationDeps,
): Promise<{ round: number; open: number; confirmed: number; pruned: number; created: number }> {
  const at = deps.now().toISOString();
  const nodes = await deps.incidents.listNodes(input.conversationId);
  const merge = mergeRound(nodes, input.round);
  for (const update of merge.updates) {
    await deps.incidents.updateNode(input.conversationId, {
      ...update,
      ...(update.status === 'open' ? {} : { closedRound: input.round, closedAt: at }),
    });
  }
  await deps.incidents.putNodes(input.conversationId, merge.created);
  const after = await deps.incidents.listNodes(input.conversationId);
  const count = (status: HypothesisNode['status']) => after.filter((n) => n.status === status).length;
  const summary = `${merge.updates.length} evaluated, ${merge.created.length} sub-hypotheses${
    merge.unevaluated.length > 0 ? `, no evaluation of ${merge.unevaluated.join(', ')}` : ''
  }`;
  await deps.incidents.recordRound(
    input.conversationId,
    { round: input.round, decision: 'merged', reason: summary, at },
    input.round,
  );
  return {
    round: input.round,
    open: count('open'),
    confirmed: count('confirmed'),
    pruned: count('pruned'),
    created: merge.created.length,
  };
}

/**
 * The conclusion after the rules: a root cause only for a hypothesis the tree confirmed, with
 * at least one strong cited finding in its chain; otherwise INCONCLUSIVE with its gaps.
 * Confidence is capped by the chain's sources; uncited links are dropped and recorded.
 */
export async function recordConclusion(
  input: { conversationId: string; result?: ConclusionResult; error?: string },
  deps: InvestigationDeps,
): Promise<{ outcome: StoredConclusion['outcome']; confidence: StoredConclusion['confidence'] }> {
  const record = await requireRecord(deps, input.conversationId);
  const nodes = await deps.incidents.listNodes(input.conversationId);
  const confirmed = nodes.filter((n) => n.status === 'confirmed');
  const because = record.concludedBecause
    ? CONCLUDE_REASONS[record.concludedBecause as keyof typeof CONCLUDE_REASONS]
    : undefined;
  const result = input.result;
  const adjustments: string[] = [];
  const { kept, drops } = result
    ? checkFindings(result.evidence_chain, await ledgerOf(deps, input.conversationId))
    : { kept: [], drops: [] };
  let outcome: StoredConclusion['outcome'] = result?.outcome ?? 'inconclusive';
  let hypothesisId = result?.hypothesis_id;
  if (outcome === 'root_cause') {
    const chosen = confirmed.find((n) => n.id === hypothesisId) ?? confirmed[0];
    if (chosen === undefined) {
      outcome = 'inconclusive';
      adjustments.push('root cause refused: no hypothesis was confirmed with cited evidence');
    } else if (!kept.some((k) => k.strength === 'strong')) {
      outcome = 'inconclusive';
      adjustments.push('root cause refused: its evidence chain has no strong finding with a valid citation');
    } else if (chosen.id !== hypothesisId) {
      adjustments.push(
        `filed under the confirmed ${chosen.id}: the conclusion named ${hypothesisId ?? 'none'}`,
      );
      hypothesisId = chosen.id;
    }
  }
  const claimed = result?.confidence ?? 'low';
  let confidence = capLevel(claimed, supportingSources(kept));
  if (outcome === 'inconclusive') confidence = 'low';
  if (confidence !== claimed) adjustments.push(`confidence ${claimed} lowered to ${confidence}`);
  const gaps = [...(result?.gaps ?? [])];
  if (input.error !== undefined) gaps.push(`The concluding agent did not finish: ${input.error}`);
  if (outcome === 'inconclusive' && because) gaps.push(`The investigation stopped because ${because}.`);
  const conclusion: StoredConclusion = {
    outcome,
    claimedOutcome: result?.outcome ?? 'inconclusive',
    rootCause:
      outcome === 'root_cause'
        ? (result?.root_cause ?? '')
        : (result?.root_cause ?? 'No root cause was established.'),
    ...(outcome === 'root_cause' && hypothesisId ? { hypothesisId } : {}),
    confidence,
    claimedConfidence: claimed,
    evidenceChain: kept,
    drops,
    adjustments,
    alternativeExplanations: result?.alternative_explanations ?? [],
    unknowns: result?.unknowns ?? [],
    gaps,
    ...(outcome === 'root_cause' && result?.primary_cause ? { primaryCause: result.primary_cause } : {}),
    ...(result?.checked ? { checked: result.checked } : {}),
    at: deps.now().toISOString(),
  };
  await deps.incidents.updateRecord(input.conversationId, { conclusion });
  return { outcome, confidence };
}
