import * as z from 'zod';
import { communication } from './communication.ts';
import { ReviewIssue } from './parts.ts';

/** The reviewer's submission (`submit_review`): its verdict. */
export const ReviewSubmission = z.object({
  verdict: z.enum(['APPROVED', 'REJECTED', 'NEEDS_INFO']),
  findings: z.object({ good: z.array(z.string().max(500)).max(20), issues: z.array(ReviewIssue).max(30) }),
  feedback_for_writer: z
    .string()
    .max(12_000)
    .optional()
    .describe('Required when REJECTED: what the writer must change.'),
  ...communication,
});
export type ReviewSubmission = z.infer<typeof ReviewSubmission>;
