import { ConversationNotFoundError } from './errors.ts';
import type { ConversationStore } from './ports.ts';
import type { DrainedMessage, DrainInput, DrainOutput } from './tasks.ts';

/** Per-message cap on text carried in the state payload; the history tool serves it whole. */
export const DRAINED_TEXT_LIMIT = 2_000;
/** Cap on the number of messages carried in the payload (256 KB state limit). */
export const DRAINED_COUNT_LIMIT = 50;

/**
 * Hands the pending messages to turn `input.turn` (I3). Idempotent per message: a retried
 * Drain of the same turn returns the same messages; a message taken by another turn is skipped.
 * Every drained message is marked, even beyond the payload cap (the history tool has them all).
 */
export async function drain(input: DrainInput, deps: { store: ConversationStore }): Promise<DrainOutput> {
  // The wait (if any) has ended: clear it so that no Router wakes a finished task.
  await deps.store.clearWait(input.conversationId);
  const conversation = await deps.store.getConversation(input.conversationId, { consistent: true });
  if (!conversation) throw new ConversationNotFoundError(input.conversationId);
  const pending = await deps.store.pendingMessages(input.conversationId, { includeTurn: input.turn });
  const delivered: DrainedMessage[] = [];
  for (const message of pending) {
    if ((await deps.store.markDelivered(message, input.turn)) === 'taken') continue;
    delivered.push({
      ts: message.ts,
      channel: message.channel,
      senderType: message.senderType,
      senderId: message.senderId,
      messageType: message.messageType,
      text: message.text.slice(0, DRAINED_TEXT_LIMIT),
      truncated: message.text.length > DRAINED_TEXT_LIMIT,
    });
  }
  return {
    turn: input.turn,
    closeRequested: conversation.closeRequested,
    count: delivered.length,
    messages: delivered.slice(-DRAINED_COUNT_LIMIT),
  };
}
