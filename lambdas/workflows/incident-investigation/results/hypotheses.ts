import * as z from 'zod';
import { Category, Text } from './shared.ts';

/** The hypothesizer's result (profiles/hypothesizer.ts). */

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
