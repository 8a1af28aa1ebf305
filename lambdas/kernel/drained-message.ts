import * as z from 'zod';
import { MessageType, SenderType } from './message-kinds.ts';

/**
 * A message as Drain hands it to a turn (in `DrainOutput`, then in the agent turn's input).
 * A module of its own: the agent turns read it without loading every kernel task's schema.
 */
export const DrainedMessage = z.object({
  ts: z.string(),
  channel: z.string(),
  senderType: SenderType,
  senderId: z.string(),
  messageType: MessageType,
  text: z.string(),
  /** True when `text` was cut to keep the state payload small; the history tool has it whole. */
  truncated: z.boolean(),
  /**
   * Whether code checked that the sender holds a role in the workflow (a GitHub permission
   * check, made before the turn). Absent: decided from the sender type (kernel/people-text.ts).
   */
  verified: z.boolean().optional(),
  /** For an `action` message (a pressed button): its action id and value. */
  actionId: z.string().max(255).optional(),
  actionValue: z.string().max(2_000).optional(),
  /** The outside item the text is a version of (StoredMessage's `sourceId`). */
  sourceId: z.string().optional(),
});
export type DrainedMessage = z.infer<typeof DrainedMessage>;
