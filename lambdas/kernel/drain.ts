import type { ConversationStore } from './ports.ts';
import type { DrainedMessage, DrainInput, DrainOutput } from './tasks.ts';

/** Per-message cap on text carried in the state payload; the history tool serves it whole. */
export const DRAINED_TEXT_LIMIT = 2_000;
/** Cap on the number of messages carried in the payload (256 KB state limit). */
export const DRAINED_COUNT_LIMIT = 50;

export interface DrainOptions {
  /**
   * The invocation's time so far, added to the conversation's ledger in Drain's own write
   * (so the ledger costs no request of its own on the wake path).
   * @default - nothing is added
   */
  elapsedMs?: () => number;
}

/**
 * Hands the pending messages to turn `input.turn` (I3). Idempotent per message: a retried
 * Drain of the same turn returns the same messages; a message taken by another turn is skipped.
 * Every drained message is marked, even beyond the payload cap (the history tool has them all).
 *
 * Two round trips: the pending messages (a strongly consistent query), then,
 * in parallel, each message's mark and one write on the conversation that removes the ended
 * wait, sets the turn's `mark` (status, phase), adds the ledger, and reads `closeRequested`.
 * The wait may be removed after the messages were read: a Router that meanwhile wakes its
 * (finished) token is told "already woken", which is harmless.
 */
export async function drain(
  input: DrainInput,
  deps: { store: ConversationStore },
  options: DrainOptions = {},
): Promise<DrainOutput> {
  const pending = await deps.store.pendingMessages(input.conversationId, { includeTurn: input.turn });
  const lambdaMs = options.elapsedMs === undefined ? undefined : Math.round(options.elapsedMs());
  const [marks, conversation] = await Promise.all([
    Promise.all(pending.map((message) => deps.store.markDelivered(message, input.turn))),
    deps.store.endWait(input.conversationId, {
      ...(input.mark ? { mark: input.mark } : {}),
      ...(lambdaMs ? { ledger: { lambdaMs } } : {}),
    }),
  ]);
  const delivered: DrainedMessage[] = [];
  pending.forEach((message, i) => {
    if (marks[i] === 'taken') return;
    delivered.push({
      ts: message.ts,
      channel: message.channel,
      senderType: message.senderType,
      senderId: message.senderId,
      messageType: message.messageType,
      text: message.text.slice(0, DRAINED_TEXT_LIMIT),
      truncated: message.text.length > DRAINED_TEXT_LIMIT,
      ...(message.actionId === undefined ? {} : { actionId: message.actionId.slice(0, 255) }),
      ...(message.actionValue === undefined ? {} : { actionValue: message.actionValue.slice(0, 2_000) }),
    });
  });
  return {
    turn: input.turn,
    closeRequested: conversation.closeRequested,
    count: delivered.length,
    messages: delivered.slice(-DRAINED_COUNT_LIMIT),
  };
}
