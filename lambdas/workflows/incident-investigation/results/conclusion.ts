import * as z from 'zod';
import { CitedFinding, Text } from './shared.ts';

/** The concluder's result (profiles/concluder.ts). */

export const ConfidenceLevel = z.enum(['low', 'medium', 'high']);
export type ConfidenceLevel = z.infer<typeof ConfidenceLevel>;

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
