import { type Conversation, type StoredMessage, waitAccepts } from './model.ts';
import type { ConversationStore, Executions, WakeResult } from './ports.ts';
import type { WakeOutput } from './tasks.ts';

/**
 * I4: a wait is woken if, and only if, a close was requested or a pending message it accepts
 * exists. Both sides of the protocol (RegisterWait and the Router) call this after their own
 * write, with a strongly consistent read of the conversation and its pending messages.
 */
export function wakeReason(
  conversation: Conversation,
  pending: readonly StoredMessage[],
): WakeOutput | undefined {
  const wait = conversation.wait;
  if (!wait) return undefined;
  if (conversation.closeRequested) return { woken: 'close' };
  if (pending.some((m) => waitAccepts(wait.accepts, m.senderType))) return { woken: 'message' };
  return undefined;
}

export type WakeCheck =
  | { outcome: 'no_wait' | 'nothing_accepted' }
  | { outcome: WakeResult; reason: WakeOutput['woken']; waitId: string };

/**
 * The read half of the protocol: read the open wait and what is pending, and wake if I4 says so.
 * `written` is the conversation as the caller's own write returned it, when it did: the record
 * at that write, so it is not read again. What another side writes later is that side's to
 * act on: it reads after its own write, finds the wait, and wakes it.
 */
export async function wakeIfDue(
  deps: { store: ConversationStore; executions: Executions },
  conversationId: string,
  written?: Conversation,
): Promise<WakeCheck> {
  const conversation = written ?? (await deps.store.getConversation(conversationId, { consistent: true }));
  if (!conversation?.wait) return { outcome: 'no_wait' };
  const pending = conversation.closeRequested ? [] : await deps.store.pendingMessages(conversationId);
  const reason = wakeReason(conversation, pending);
  if (!reason) return { outcome: 'nothing_accepted' };
  const outcome = await deps.executions.wake(conversation.wait.taskToken, reason);
  return { outcome, reason: reason.woken, waitId: conversation.wait.waitId };
}

/**
 * The Router's read half for a message it has just stored, given what it read after that
 * write (the conversation, and whether the message is still pending): due if a close was
 * requested, or if the wait accepts this message and no turn has taken it yet. No other
 * message needs looking at: whoever stored another, and RegisterWait, each read after their
 * own write, so one of them wakes the wait for it. And a message some Drain took
 * already must not wake a later wait: that wait's RegisterWait read after the message was
 * stored, so it had nothing of it to wake for.
 */
export async function wakeForStoredMessage(
  deps: { executions: Executions },
  conversation: Conversation,
  message: { senderType: StoredMessage['senderType']; pending: boolean },
): Promise<WakeCheck> {
  const wait = conversation.wait;
  if (!wait) return { outcome: 'no_wait' };
  const reason: WakeOutput | undefined = conversation.closeRequested
    ? { woken: 'close' }
    : message.pending && waitAccepts(wait.accepts, message.senderType)
      ? { woken: 'message' }
      : undefined;
  if (!reason) return { outcome: 'nothing_accepted' };
  const outcome = await deps.executions.wake(wait.taskToken, reason);
  return { outcome, reason: reason.woken, waitId: wait.waitId };
}
