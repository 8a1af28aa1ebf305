import { isCloseIntent } from './close-intent.ts';
import { FINISHED_STATUSES, type SenderType, type StoredMessage } from './model.ts';
import { verifiedRole } from './people.ts';
import type { ThreadLink } from './ports.ts';
import { storeClose } from './route-close.ts';
import type { Ended, Incoming, RouteOutcome, RouterDeps } from './route-types.ts';
import { wakeForStoredMessage } from './wake.ts';

/**
 * The Router's write for a message of a conversation, whatever its source (a Slack reply, a
 * button, a GitHub comment, an alert): store it and wake the conversation, or, when the
 * conversation has ended, say so (the Router's table then hands it to ended-answer.ts). The routes decide that a record is such
 * a message; a start is route-start.ts's, and the owner's close route-close.ts's.
 */

/** The sender's role in this thread, or null when the thread does not hear them (I5). */
function senderTypeIn(link: ThreadLink, userId: string): SenderType | null {
  if (userId === link.ownerId && link.anchor.ownerRole !== null) return link.anchor.ownerRole;
  return link.anchor.othersRole;
}

export async function storeIncoming(
  link: ThreadLink,
  incoming: Incoming,
  deps: RouterDeps,
): Promise<RouteOutcome | Ended> {
  const conversationId = link.conversationId;
  // Only the owner, in a thread where they are the owner (the reporter's own thread), can close.
  const byOwner = incoming.user === link.ownerId && link.anchor.ownerRole !== null;
  const role = senderTypeIn(link, incoming.user);
  const message = storedMessage(link, incoming);
  const mayClose =
    incoming.kind === 'message' && incoming.closable && byOwner && isCloseIntent(incoming.text);
  // A role the configuration defines is given to its holders only; the owner's is theirs.
  const senderType = role === null || byOwner ? role : await verifiedRole(deps.people, incoming.user, role);
  if (senderType === null) {
    return {
      type: 'ignored',
      conversationId,
      reason: `${incoming.user} is not heard in thread ${link.anchor.name}`,
    };
  }
  if (mayClose) return storeClose(link, incoming, { ...message, senderType }, deps);

  // The wake path's short form: store, then one read of the conversation
  // and the message together, then wake. Write before read.
  const stored = {
    ...message,
    senderType,
    messageType: incoming.kind === 'action' ? 'action' : 'message',
  } as const;
  const put = await deps.store.putMessage(stored);
  const after = await deps.store.readAfterStore(stored);
  const conversation = after.conversation;
  if (!conversation) {
    await deps.store.withdrawMessage(stored);
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  }
  if (FINISHED_STATUSES.has(conversation.status)) {
    // Stored a moment after the conversation ended: take it back, unless the closing Drain
    // already recorded it with the close (I3), and tell the sender, as for any later reply.
    if ((await deps.store.withdrawMessage(stored)) === 'delivered') {
      return { type: 'ignored', conversationId, reason: "recorded with the conversation's close" };
    }
    return { type: 'ended', link, incoming, conversation };
  }
  const pending = after.message !== undefined && after.message.deliveredInTurn === undefined;
  // A new participant is bookkeeping, not part of the protocol: recorded beside the wake.
  const [wake] = await Promise.all([
    wakeForStoredMessage(deps, conversation, { senderType, pending }),
    incoming.user in conversation.participants
      ? undefined
      : deps.store.addParticipant(conversationId, incoming.user, senderType),
  ]);
  return { type: 'stored', conversationId, senderType, messageType: stored.messageType, stored: put, wake };
}

/** The message as stored, but for its sender's role and its type. */
function storedMessage(
  link: ThreadLink,
  incoming: Incoming,
): Omit<StoredMessage, 'senderType' | 'messageType'> {
  return {
    conversationId: link.conversationId,
    ts: incoming.ts,
    channel: incoming.channel,
    threadTs: link.anchor.threadTs,
    senderId: incoming.user,
    text: incoming.text,
    ...(incoming.actionId !== undefined ? { actionId: incoming.actionId } : {}),
    ...(incoming.actionValue !== undefined ? { actionValue: incoming.actionValue } : {}),
    ...(incoming.sourceId !== undefined ? { sourceId: incoming.sourceId } : {}),
    receivedAt: incoming.receivedAt,
  };
}
