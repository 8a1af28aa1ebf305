import type { DrainedMessage } from './drained-message.ts';
import type { StoredMessage } from './model.ts';
import type { ConversationStore } from './ports.ts';
import { type SettleOptions, settledPending } from './settle.ts';
import type { DrainInput, DrainOutput } from './tasks.ts';

/** Per-message cap on text carried in the state payload; the history tool serves it whole. */
const DRAINED_TEXT_LIMIT = 2_000;
/**
 * Cap on the number of messages carried in the payload (256 KB state limit): a coalesced burst
 * of this many still reaches the prompt whole, each message's text within the shared budget.
 */
const DRAINED_COUNT_LIMIT = 200;
/**
 * The text of all carried messages together, so that the drained payload stays near 64 KB
 * (about 150 bytes of fields per message besides its text) whatever the count: with many
 * messages each gets a shorter cut, never below `DRAINED_TEXT_FLOOR`.
 */
const DRAINED_TEXT_BUDGET = 32_000;
export const DRAINED_TEXT_FLOOR = 160;

/** The per-message text cap for `count` carried messages. */
function drainedTextCap(count: number): number {
  if (count <= 0) return DRAINED_TEXT_LIMIT;
  return Math.max(DRAINED_TEXT_FLOOR, Math.min(DRAINED_TEXT_LIMIT, Math.floor(DRAINED_TEXT_BUDGET / count)));
}

export interface DrainOptions {
  /**
   * The invocation's time so far, added to the conversation's ledger in Drain's own write
   * (so the ledger costs no request of its own on the wake path).
   * @default - nothing is added
   */
  elapsedMs?: () => number;
  /**
   * Coalesces a burst: when several messages are pending, wait until no new one has been
   * stored for a quiet spell (bounded), so one turn answers the whole burst.
   * @default - no settling: the pending messages are taken as they are
   */
  settle?: SettleOptions;
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
  const read = () => deps.store.pendingMessages(input.conversationId, { includeTurn: input.turn });
  // Settling only delays the read: what is taken below is still every pending message, marked
  // per message, so a message stored during or after the settle is in this turn or the next.
  const pending: StoredMessage[] = options.settle ? await settledPending(read, options.settle) : await read();
  const lambdaMs = options.elapsedMs === undefined ? undefined : Math.round(options.elapsedMs());
  const [marks, conversation] = await Promise.all([
    Promise.all(pending.map((message) => deps.store.markDelivered(message, input.turn))),
    deps.store.endWait(input.conversationId, {
      ...(input.mark ? { mark: input.mark } : {}),
      ...(lambdaMs ? { ledger: { lambdaMs } } : {}),
    }),
  ]);
  const taken = pending.filter((_, i) => marks[i] !== 'taken');
  const carried = taken.slice(-DRAINED_COUNT_LIMIT);
  const textCap = drainedTextCap(carried.length);
  const delivered: DrainedMessage[] = [];
  for (const message of carried) {
    delivered.push({
      ts: message.ts,
      channel: message.channel,
      senderType: message.senderType,
      senderId: message.senderId,
      messageType: message.messageType,
      text: message.text.slice(0, textCap),
      truncated: message.text.length > textCap,
      ...(message.actionId === undefined ? {} : { actionId: message.actionId.slice(0, 255) }),
      ...(message.actionValue === undefined ? {} : { actionValue: message.actionValue.slice(0, 2_000) }),
      ...(message.sourceId === undefined ? {} : { sourceId: message.sourceId }),
    });
  }
  return {
    turn: input.turn,
    closeRequested: conversation.closeRequested,
    count: taken.length,
    messages: delivered,
  };
}
