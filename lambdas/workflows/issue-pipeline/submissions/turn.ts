import * as z from 'zod';

/** What every agent turn of the pipeline may submit besides its own result, and what it returns. */

/** An answer to another agent's question (`submit_answer`). */
export const AnswerSubmission = z.object({ answer: z.string().min(1).max(4_000) });
export type AnswerSubmission = z.infer<typeof AnswerSubmission>;

/**
 * What an agent turn returns: the submission (passed once through the state to the hand-off,
 * which validates it against the document and stores it), `continue` when the turn ran out of
 * its budget, or `blocked` with the reason (a failed turn, a schema broken three times).
 */
export const IssueTurnOutput = z.object({
  action: z.enum(['submitted', 'continue', 'blocked']),
  sessionId: z.string().min(1),
  submission: z.record(z.string(), z.unknown()).optional(),
  reason: z.string().max(2_000).optional(),
  /** With `continue`: a person stopped the turn (Stop); people say how it goes on. */
  stoppedByPerson: z.literal(true).optional(),
});
export type IssueTurnOutput = z.infer<typeof IssueTurnOutput>;
