import * as z from 'zod';
import { CheckedQuery, ConclusionResult, PrimaryCause, RiskLevel, TriageResult } from './contract.ts';
import { Drop, KeptFinding } from './evidence.ts';
import type { HypothesisNode, StoredEvaluation } from './tree.ts';

/**
 * The incident's own record (beside the conversation's, `keys.workflowItem(id, 'INCIDENT')`):
 * triage, the rounds and why they ended, the conclusion after the evidence rules, the
 * remediation plan with each step's approval and result, the phase messages to update in
 * place, and the investigation's metrics. The hypothesis nodes are items of their own.
 */

export const StoredConclusion = z.object({
  outcome: z.enum(['root_cause', 'inconclusive']),
  claimedOutcome: ConclusionResult.shape.outcome,
  rootCause: z.string(),
  hypothesisId: z.string().optional(),
  confidence: z.enum(['low', 'medium', 'high']),
  claimedConfidence: z.enum(['low', 'medium', 'high']),
  evidenceChain: z.array(KeptFinding),
  drops: z.array(Drop),
  adjustments: z.array(z.string()),
  alternativeExplanations: z.array(z.string()),
  unknowns: z.array(z.string()),
  gaps: z.array(z.string()),
  /** The primary cause's fields as the model submitted them (with `root_cause`). */
  primaryCause: PrimaryCause.optional(),
  /** What the model says it checked and found no cause in (with `inconclusive`). */
  checked: z.array(CheckedQuery).optional(),
  at: z.string(),
});
export type StoredConclusion = z.infer<typeof StoredConclusion>;

/** Planned: a skill runs it (`pending`), or people do it by hand (`manual`: no skill named). */
const PLANNED = ['pending', 'manual'] as const;
/** Its approval: asked, then decided. */
const DECIDED = ['awaiting_approval', 'approved', 'rejected'] as const;
/** Its run; `not_run` when nobody decided on it in time. */
const RAN = ['succeeded', 'failed', 'not_run'] as const;
/** A remediation step's status, from its plan to its end. */
export const StepStatus = z.enum([...PLANNED, ...DECIDED, ...RAN]);
export type StepStatus = z.infer<typeof StepStatus>;

const Outcome = z.object({ ok: z.boolean(), detail: z.string(), at: z.string() });

export const StoredStep = z.object({
  index: z.number().int().nonnegative(),
  action: z.string(),
  command: z.string().optional(),
  skill: z.string().optional(),
  parameters: z.record(z.string(), z.string()).default({}),
  rollback: z.string().optional(),
  rollbackSkill: z.string().optional(),
  riskLevel: RiskLevel,
  /** Decided by code: the model's flag, or a mutating skill, or a risk above low. */
  requiresApproval: z.boolean(),
  runbook: z.string().optional(),
  /** Why code changed the model's step (an unknown skill made manual...). */
  notes: z.array(z.string()).default([]),
  status: StepStatus,
  /** Set just before its skill is called: a retried run finds it and does not call it twice. */
  running: z.boolean().optional(),
  approval: z
    .object({ decision: z.string(), by: z.string(), at: z.string(), messageTs: z.string() })
    .optional(),
  result: Outcome.optional(),
  rollbackResult: Outcome.optional(),
});
export type StoredStep = z.infer<typeof StoredStep>;

export const StoredPlan = z.object({
  steps: z.array(StoredStep),
  estimatedRecoveryTime: z.string(),
  monitoring: z.array(z.string()),
  matchedRunbooks: z.array(z.object({ name: z.string(), title: z.string() })),
  status: z.enum(['proposed', 'running', 'completed', 'stopped', 'failed']),
  stopReason: z.string().optional(),
});
export type StoredPlan = z.infer<typeof StoredPlan>;

/** The AgentMetrics (the post-incident accuracy fields come from a postmortem, not from here). */
export const AgentMetrics = z.object({
  hypothesesFormed: z.number().int(),
  hypothesesPruned: z.number().int(),
  hypothesesConfirmed: z.number().int(),
  averageDepth: z.number(),
  maxDepth: z.number().int(),
  rounds: z.number().int(),
  toolCallsPerInvestigation: z.number().int(),
  findingsDropped: z.number().int(),
  /** Seconds from the start to the confirmation; absent when nothing was confirmed. */
  timeToRootCause: z.number().optional(),
  approvalsRequested: z.number().int(),
  approvalsGranted: z.number().int(),
  /** Messages people added in the incident's thread after it began. */
  clarificationsNeeded: z.number().int(),
  outcome: z.enum(['root_cause', 'inconclusive', 'none']),
});
export type AgentMetrics = z.infer<typeof AgentMetrics>;

export const PHASES = ['triage', 'hypotheses', 'conclusion', 'remediation'] as const;
export type Phase = (typeof PHASES)[number];

export const IncidentRecord = z.object({
  startedAt: z.string(),
  channel: z.string(),
  threadTs: z.string(),
  triage: TriageResult.optional(),
  roundsDone: z.number().int().nonnegative().default(0),
  rounds: z
    .array(
      z.object({
        round: z.number().int(),
        decision: z.string(),
        reason: z.string().optional(),
        at: z.string(),
      }),
    )
    .default([]),
  concludedBecause: z.string().optional(),
  conclusion: StoredConclusion.optional(),
  plan: StoredPlan.optional(),
  /** The phase messages, posted once and then updated in place. */
  progress: z.record(z.string(), z.object({ channel: z.string(), ts: z.string() })).default({}),
  metrics: AgentMetrics.optional(),
  finishedAt: z.string().optional(),
});
export type IncidentRecord = z.infer<typeof IncidentRecord>;

/** Where the investigation's items live; the adapter over DynamoDB implements it. */
export interface IncidentStore {
  /** Creates the record once (a retried start keeps the first). */
  createRecord(conversationId: string, record: IncidentRecord): Promise<void>;
  getRecord(conversationId: string): Promise<IncidentRecord | undefined>;
  /** Sets top-level fields of the record. */
  updateRecord(conversationId: string, fields: Partial<IncidentRecord>): Promise<void>;
  /** Appends a round's entry to `rounds` once per round and sets `roundsDone` (idempotent). */
  recordRound(
    conversationId: string,
    entry: IncidentRecord['rounds'][number],
    roundsDone: number,
  ): Promise<void>;
  /** Sets one step of the plan. */
  updateStep(conversationId: string, step: StoredStep): Promise<void>;
  /** Creates nodes that do not exist yet (a retried write creates none twice). */
  putNodes(conversationId: string, nodes: readonly HypothesisNode[]): Promise<void>;
  listNodes(conversationId: string): Promise<HypothesisNode[]>;
  /** Records a round's evaluation (or its failure) of a node, replacing that round's earlier one. */
  setEvaluation(
    conversationId: string,
    nodeId: string,
    round: number,
    evaluation: StoredEvaluation | { round: number; failed: string; at: string },
    sessionId?: string,
  ): Promise<void>;
  /** Sets a node's status and confidence (a merge). */
  updateNode(
    conversationId: string,
    update: Pick<HypothesisNode, 'id' | 'status' | 'confidence' | 'level'> & {
      closedRound?: number;
      closedAt?: string;
    },
  ): Promise<void>;
}
