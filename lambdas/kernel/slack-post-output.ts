import * as z from 'zod';

/**
 * What a post to Slack returns (the SlackPost task's output, and what the post ledger keeps).
 * A module of its own: the conversation store reads it without loading every kernel task's schema.
 */
export const SlackPostOutput = z.object({
  channel: z.string(),
  ts: z.string(),
  threadTs: z.string(),
  /** The nonce of the approval the post opened (its buttons'), for a wait to park on. */
  approvalNonce: z.string().optional(),
});
export type SlackPostOutput = z.infer<typeof SlackPostOutput>;
