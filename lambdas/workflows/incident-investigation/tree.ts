import * as z from 'zod';
import { microUsd } from '../../shared/money.ts';
import {
  Category,
  ConfidenceLevel,
  EvaluationAction,
  EvidenceStrength,
  type HypothesesResult,
} from './contract.ts';
import { Drop, KeptFinding } from './evidence.ts';

/**
 * The hypothesis tree (its hypothesis engine): nodes kept in DynamoDB beside the
 * conversation, one item each, so parallel evaluations write apart and the state machine
 * carries ids only. H1..H5 are the first hypotheses; a branch adds H2.1, H2.2...
 */

export const NodeStatus = z.enum(['open', 'confirmed', 'pruned', 'branched']);
export type NodeStatus = z.infer<typeof NodeStatus>;

/** One round's evaluation of a node, after the evidence rules (evidence.ts). */
export const StoredEvaluation = z.object({
  round: z.number().int().positive(),
  claimedStrength: EvidenceStrength,
  strength: EvidenceStrength,
  claimedAction: EvaluationAction,
  action: EvaluationAction,
  claimedConfidence: z.number(),
  confidence: z.number(),
  level: ConfidenceLevel,
  reasoning: z.string(),
  findings: z.array(KeptFinding),
  drops: z.array(Drop),
  adjustments: z.array(z.string()),
  subHypotheses: z.array(
    z.object({
      statement: z.string(),
      category: Category,
      confirming_evidence: z.string(),
      refuting_evidence: z.string(),
    }),
  ),
  at: z.string(),
});
export type StoredEvaluation = z.infer<typeof StoredEvaluation>;

/** A round whose investigation of the node failed: recorded as a gap. */
export const FailedEvaluation = z.object({
  round: z.number().int().positive(),
  failed: z.string(),
  at: z.string(),
});

export const HypothesisNode = z.object({
  id: z.string().regex(/^H\d+(\.\d+)*$/),
  parentId: z.string().optional(),
  depth: z.number().int().positive(),
  statement: z.string(),
  category: Category,
  priority: z.number().int(),
  confirmingEvidence: z.string(),
  refutingEvidence: z.string(),
  suggestedQueries: z.array(z.object({ tool: z.string(), purpose: z.string() })).default([]),
  status: NodeStatus,
  /** The last kept confidence (0-100) and its level. */
  confidence: z.number().default(0),
  level: ConfidenceLevel.default('low'),
  /** The investigator's session for this hypothesis, resumed in later rounds. */
  sessionId: z.string().optional(),
  createdRound: z.number().int().nonnegative(),
  /** The round in which it was confirmed, pruned or branched. */
  closedRound: z.number().int().optional(),
  closedAt: z.string().optional(),
  /** Evaluations by round (`"1"`, `"2"`...). */
  evaluations: z.record(z.string(), z.union([StoredEvaluation, FailedEvaluation])).default({}),
});
export type HypothesisNode = z.infer<typeof HypothesisNode>;

/** The first hypotheses, H1..Hn in the order the model gave them. */
export function firstNodes(result: HypothesesResult): HypothesisNode[] {
  return result.hypotheses.map((h, index) => ({
    id: `H${index + 1}`,
    depth: 1,
    statement: h.statement,
    category: h.category,
    priority: h.priority,
    confirmingEvidence: h.confirming_evidence,
    refutingEvidence: h.refuting_evidence,
    suggestedQueries: h.suggested_queries,
    status: 'open',
    confidence: 0,
    level: 'low',
    createdRound: 0,
    evaluations: {},
  }));
}

/** What a round's merge changes: node updates and new sub-hypotheses. */
export interface RoundMerge {
  updates: { id: string; status: NodeStatus; confidence: number; level: HypothesisNode['level'] }[];
  created: HypothesisNode[];
  /** Open hypotheses the round left without an evaluation (a failed iteration). */
  unevaluated: string[];
}

/**
 * Applies round `round`'s evaluations to the tree (its EVALUATE): confirm, prune,
 * branch into sub-hypotheses (open, one level deeper), or continue (stays open).
 */
export function mergeRound(nodes: readonly HypothesisNode[], round: number): RoundMerge {
  const merge: RoundMerge = { updates: [], created: [], unevaluated: [] };
  const ids = new Set(nodes.map((n) => n.id));
  for (const node of nodes) {
    if (node.status !== 'open') continue;
    const evaluation = node.evaluations[String(round)];
    if (evaluation === undefined || !('action' in evaluation)) {
      if (node.createdRound < round) merge.unevaluated.push(node.id);
      continue;
    }
    const status: Record<StoredEvaluation['action'], NodeStatus> = {
      confirm: 'confirmed',
      prune: 'pruned',
      branch: 'branched',
      continue: 'open',
    };
    merge.updates.push({
      id: node.id,
      status: status[evaluation.action],
      confidence: evaluation.confidence,
      level: evaluation.level,
    });
    if (evaluation.action !== 'branch') continue;
    evaluation.subHypotheses.forEach((sub, index) => {
      let id = `${node.id}.${index + 1}`;
      for (let k = index + 2; ids.has(id); k++) id = `${node.id}.${k}`;
      ids.add(id);
      merge.created.push({
        id,
        parentId: node.id,
        depth: node.depth + 1,
        statement: sub.statement,
        category: sub.category,
        priority: node.priority,
        confirmingEvidence: sub.confirming_evidence,
        refutingEvidence: sub.refuting_evidence,
        suggestedQueries: [],
        status: 'open',
        confidence: evaluation.confidence,
        level: 'low',
        createdRound: round,
        evaluations: {},
      });
    });
  }
  return merge;
}

/** The nodes with a merge applied (what the store writes, as the next plan reads it). */
export function applyMerge(nodes: readonly HypothesisNode[], merge: RoundMerge): HypothesisNode[] {
  const byId = new Map(merge.updates.map((u) => [u.id, u]));
  return [
    ...nodes.map((n) => {
      const u = byId.get(n.id);
      return u ? { ...n, status: u.status, confidence: u.confidence, level: u.level } : n;
    }),
    ...merge.created,
  ];
}

/** Open hypotheses in the order they are investigated: priority, then shallower, then id. */
export function openInOrder(nodes: readonly HypothesisNode[]): HypothesisNode[] {
  return nodes
    .filter((n) => n.status === 'open')
    .sort((a, b) => a.priority - b.priority || a.depth - b.depth || a.id.localeCompare(b.id, 'en'));
}

/** Why the rounds end (or `investigate`). */
export type RoundDecision =
  | { decision: 'investigate' }
  | {
      decision: 'conclude';
      reason: 'confirmed' | 'all_pruned' | 'round_budget' | 'time_budget' | 'cost_budget' | 'money_budget';
    };

export interface Budget {
  maxRounds: number;
  maxMinutes: number;
  maxTokens: number;
  /** Dollars of model cost; none: the tokens alone. */
  maxCostUsd?: number | undefined;
}

/**
 * Whether another round runs: not when a hypothesis is confirmed or none is open, nor when
 * the round, time or cost budget is spent (model tokens, and money when a `maxCostUsd` is set).
 */
export function decideRound(
  nodes: readonly HypothesisNode[],
  spent: { roundsDone: number; startedAt: string; tokens: number; costMicroUsd?: number; nowMs: number },
  budget: Budget,
): RoundDecision {
  if (nodes.some((n) => n.status === 'confirmed')) return { decision: 'conclude', reason: 'confirmed' };
  if (!nodes.some((n) => n.status === 'open')) return { decision: 'conclude', reason: 'all_pruned' };
  if (spent.roundsDone >= budget.maxRounds) return { decision: 'conclude', reason: 'round_budget' };
  if (spent.nowMs - Date.parse(spent.startedAt) >= budget.maxMinutes * 60_000)
    return { decision: 'conclude', reason: 'time_budget' };
  if (spent.tokens >= budget.maxTokens) return { decision: 'conclude', reason: 'cost_budget' };
  if (budget.maxCostUsd !== undefined && (spent.costMicroUsd ?? 0) >= microUsd(budget.maxCostUsd))
    return { decision: 'conclude', reason: 'money_budget' };
  return { decision: 'investigate' };
}

/** The words for why the rounds ended, as people and the concluding agent read them. */
export const CONCLUDE_REASONS: Record<Extract<RoundDecision, { decision: 'conclude' }>['reason'], string> = {
  confirmed: 'a hypothesis was confirmed with cited evidence',
  all_pruned: 'every hypothesis was pruned',
  round_budget: 'the round budget was spent',
  time_budget: 'the time budget was spent',
  cost_budget: 'the cost budget (model tokens) was spent',
  money_budget: 'the cost budget (money spent on the model) was spent',
};
