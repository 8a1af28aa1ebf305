import * as z from 'zod';
import { communication } from './communication.ts';

/** The triage agent's submission (`submit_triage`). */
export const TriageSubmission = z.object({
  type: z.enum(['BUG_FIX', 'NEW_FEATURE', 'REFACTOR_STYLE']),
  scope: z.enum(['SMALL', 'MEDIUM', 'LARGE']),
  complexity: z.enum(['simple', 'moderate', 'complex']),
  should_proceed: z.boolean(),
  rejection_reason: z
    .string()
    .max(2_000)
    .optional()
    .describe('Required when should_proceed is false: said on the issue.'),
  ...communication,
});
export type TriageSubmission = z.infer<typeof TriageSubmission>;
