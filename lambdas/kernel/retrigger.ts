import * as z from 'zod';

/** A trigger that would start a conversation already running on the same anchor. */
export const Retrigger = z.object({
  conversationId: z.string().min(1),
  workflow: z.string().min(1),
  /** Where it came from: `github:owner/name` and the issue number, as the anchor keeps them. */
  channel: z.string().min(1),
  threadTs: z.string().min(1),
  /** Who triggered it again, and the event's id (the answer's idempotency key). */
  user: z.string().min(1),
  ts: z.string().min(1),
});
export type Retrigger = z.infer<typeof Retrigger>;
