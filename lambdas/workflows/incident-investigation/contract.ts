import * as z from 'zod';

/**
 * The incident investigation's structured answers, as the model submits them
 * through its final tools (`submit_triage`, `submit_hypotheses`, `submit_evaluation`,
 * `submit_conclusion`, `submit_remediation_plan`), and the small outputs its agent turns give
 * the state machine. Field names are the model's (snake case); code checks every rule that
 * matters (evidence.ts), whatever the model wrote.
 */

const Text = (max: number) => z.string().trim().min(1).max(max);
const IsoTime = z.iso.datetime({ offset: true });

export const Severity = z.enum(['low', 'medium', 'high', 'critical']);
export const Category = z.enum(['infrastructure', 'application', 'dependency', 'configuration', 'capacity']);
export type Category = z.infer<typeof Category>;
export const EvidenceStrength = z.enum(['strong', 'weak', 'none', 'contradicting']);
export type EvidenceStrength = z.infer<typeof EvidenceStrength>;
export const EvaluationAction = z.enum(['branch', 'prune', 'confirm', 'continue']);
export type EvaluationAction = z.infer<typeof EvaluationAction>;
export const ConfidenceLevel = z.enum(['low', 'medium', 'high']);
export type ConfidenceLevel = z.infer<typeof ConfidenceLevel>;
export const RiskLevel = z.enum(['low', 'medium', 'high']);

/** `submit_triage`: the TriageResult. */
export const TriageResult = z.strictObject({
  incident_summary: Text(1_000),
  affected_services: z.array(Text(100)).min(1).max(10),
  symptoms: z.array(Text(300)).max(10),
  error_messages: z.array(Text(300)).max(10),
  time_window: z.strictObject({ start: IsoTime, end: IsoTime }),
  severity: Severity,
  /** Runbooks, postmortems or known issues that look related (names or short notes). */
  related_knowledge: z.array(Text(300)).max(10),
});
export type TriageResult = z.infer<typeof TriageResult>;

/** A query a hypothesis suggests: which data tool, and why. */
export const SuggestedQuery = z.strictObject({
  tool: Text(64),
  purpose: Text(300),
});

/** `submit_hypotheses`: the HypothesisFormation, 3 to 5 testable hypotheses. */
export const HypothesesResult = z.strictObject({
  hypotheses: z
    .array(
      z.strictObject({
        statement: Text(500),
        category: Category,
        /** 1 is the most likely. */
        priority: z.number().int().min(1).max(5),
        confirming_evidence: Text(500),
        refuting_evidence: Text(500),
        suggested_queries: z.array(SuggestedQuery).max(5),
      }),
    )
    .min(3)
    .max(5),
});
export type HypothesesResult = z.infer<typeof HypothesesResult>;

/** A finding and the evidence ids (from the data tools' results) it rests on. */
export const CitedFinding = z.strictObject({
  finding: Text(500),
  evidence_ids: z.array(Text(100)).max(10),
  strength: z.enum(['strong', 'weak', 'contradicting']),
});
export type CitedFinding = z.infer<typeof CitedFinding>;

/** `submit_evaluation`: the EvidenceEvaluation of one hypothesis, with its findings. */
export const EvaluationResult = z.strictObject({
  hypothesis_id: Text(20),
  evidence_strength: EvidenceStrength,
  reasoning: Text(1_500),
  confidence: z.number().int().min(0).max(100),
  action: EvaluationAction,
  findings: z.array(CitedFinding).max(10),
  /** With `branch`: the more specific hypotheses to test next (2 or 3). */
  sub_hypotheses: z
    .array(
      z.strictObject({
        statement: Text(500),
        category: Category,
        confirming_evidence: Text(500),
        refuting_evidence: Text(500),
      }),
    )
    .max(3)
    .optional(),
});
export type EvaluationResult = z.infer<typeof EvaluationResult>;

/** What kind of change or condition a root cause is. */
export const ChangeKind = z.enum([
  'deploy',
  'configuration',
  'feature_flag',
  'dependency',
  'capacity',
  'certificate',
  'workload',
  'other',
]);
export type ChangeKind = z.infer<typeof ChangeKind>;

/** The primary root cause as fields: one component, the change or condition, the evidence that tells it apart. */
export const PrimaryCause = z.strictObject({
  /** The one service or dependency where the cause lies, as the service map names it (`payment-api`). */
  component: Text(100),
  change_kind: ChangeKind,
  /** The change or condition itself: the deploy version and what it changed, the key and value, the flag, the exhausted resource. */
  change: Text(300),
  /** The evidence ids that show this cause and not its alternatives (not the symptoms every alternative shares). */
  discriminating_evidence: z.array(Text(100)).min(1).max(5),
});
export type PrimaryCause = z.infer<typeof PrimaryCause>;

/** With `inconclusive`: one thing that was checked and showed no cause, and the evidence ids of the queries that showed it. */
export const CheckedQuery = z.strictObject({
  what: Text(300),
  evidence_ids: z.array(Text(100)).min(1).max(10),
});
export type CheckedQuery = z.infer<typeof CheckedQuery>;

/** `submit_conclusion`: the Conclusion, or INCONCLUSIVE with the gaps. */
export const ConclusionResult = z.strictObject({
  outcome: z.enum(['root_cause', 'inconclusive']),
  root_cause: Text(1_000),
  /** The confirmed hypothesis it rests on (with `root_cause`). */
  hypothesis_id: Text(20).optional(),
  confidence: ConfidenceLevel,
  evidence_chain: z.array(CitedFinding).max(10),
  alternative_explanations: z.array(Text(500)).max(5),
  unknowns: z.array(Text(500)).max(10),
  /** What could not be checked (data missing, budget spent): required for `inconclusive`. */
  gaps: z.array(Text(500)).max(10),
  /** With `root_cause`: the primary cause as fields (the single most likely one; never a list). */
  primary_cause: PrimaryCause.optional(),
  /** With `inconclusive`: what was looked at and showed no cause (deployments, logs, metrics of the services involved). */
  checked: z.array(CheckedQuery).max(10).optional(),
});
export type ConclusionResult = z.infer<typeof ConclusionResult>;

/** `submit_remediation_plan`: the RemediationPlan. */
export const RemediationPlanResult = z.strictObject({
  steps: z
    .array(
      z.strictObject({
        action: Text(500),
        /** A command for people to run (shown, never run by the workflow). */
        command: Text(500).optional(),
        /** A configured skill the workflow runs for this step, after approval when it mutates. */
        skill: Text(64).optional(),
        parameters: z.record(z.string().max(64), z.string().max(500)).optional(),
        rollback: Text(500).optional(),
        risk_level: RiskLevel,
        requires_approval: z.boolean(),
        runbook: Text(64).optional(),
      }),
    )
    .max(8),
  estimated_recovery_time: Text(100),
  monitoring: z.array(Text(300)).max(8),
});
export type RemediationPlanResult = z.infer<typeof RemediationPlanResult>;

/** The output of an incident agent turn: `submitted` with its result, or the kernel's `continue` / `escalate`. */
export function incidentTurnOutput<R extends z.ZodType>(result: R) {
  return z.object({
    action: z.enum(['submitted', 'continue', 'escalate']),
    sessionId: z.string().min(1),
    result: result.optional(),
    error: z.string().optional(),
    /** With `escalate`: the limit held by code that stopped the turn, in words for people. */
    stoppedBy: z.string().optional(),
    /** With `continue`: a person stopped the turn (Stop). */
    stoppedByPerson: z.literal(true).optional(),
    progress: z.string().optional(),
  });
}
export type IncidentTurnOutput<R> = {
  action: 'submitted' | 'continue' | 'escalate';
  sessionId: string;
  result?: R;
  error?: string;
  stoppedBy?: string;
  stoppedByPerson?: true;
  progress?: string;
};
