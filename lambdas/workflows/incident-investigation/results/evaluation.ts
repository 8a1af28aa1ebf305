import * as z from 'zod';
import { Category, CitedFinding, Text } from './shared.ts';

/** The investigator's result (profiles/investigator.ts): one hypothesis evaluated. */

export const EvidenceStrength = z.enum(['strong', 'weak', 'none', 'contradicting']);
export type EvidenceStrength = z.infer<typeof EvidenceStrength>;
export const EvaluationAction = z.enum(['branch', 'prune', 'confirm', 'continue']);
export type EvaluationAction = z.infer<typeof EvaluationAction>;

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
