import { isCloseIntent } from './close-intent.ts';
import { answerEnded } from './ended-answer.ts';
import { FINISHED_STATUSES, type MessageType, type SenderType, type StoredMessage } from './model.ts';
import { type PeopleDirectory, verifiedRole } from './people.ts';
import type { ThreadLink } from './ports.ts';
import type { Incoming, RouteOutcome, RouterDeps } from './route-types.ts';
import { wakeForStoredMessage, wakeIfDue } from './wake.ts';

export type { EndedNotice, Incoming, RouteOutcome, RouterDeps } from './route-types.ts';

/**
 * The Router's steps, whatever the source of the record: store a message of a conversation and
 * wake it, or answer in the thread of one that has ended (a start is route-start.ts's).
 * `route.ts` (Slack) and `route-external.ts` (GitHub, alerts) decide which.
 */

/** The sender's role in this thread, or null when the thread does not hear them (I5). */
export function senderTypeIn(link: ThreadLink, userId: string): SenderType | null {
  if (userId === link.ownerId && link.anchor.ownerRole !== null) return link.anchor.ownerRole;
  return link.anchor.othersRole;
}

/** `senderTypeIn`, with a role the configuration defines given to its holders only. */
async function verifiedSenderType(
  link: ThreadLink,
  userId: string,
  people: PeopleDirectory | undefined,
): Promise<SenderType | null> {
  const role = senderTypeIn(link, userId);
  const isOwner = userId === link.ownerId && link.anchor.ownerRole !== null;
  if (role === null || isOwner || people === undefined) return role;
  return verifiedRole(people, userId, role);
}

/** Why an edit is ignored, as the Slack ingress says it. */
export const EDITED_MESSAGE = 'edited_message';

export async function storeIncoming(
  link: ThreadLink,
  incoming: Incoming,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const senderType = await verifiedSenderType(link, incoming.user, deps.people);
  if (senderType === null) {
    return {
      type: 'ignored',
      conversationId,
      reason: `${incoming.user} is not heard in thread ${link.anchor.name}`,
    };
  }
  // Only the owner, in a thread where they are the owner (the reporter's own thread), can close.
  const mayClose =
    incoming.kind === 'message' &&
    incoming.closable &&
    incoming.user === link.ownerId &&
    link.anchor.ownerRole !== null &&
    isCloseIntent(incoming.text);
  if (mayClose) return storeClosingCandidate(link, incoming, senderType, deps);

  // The wake path's short form: store, then one read of the conversation
  // and the message together, then wake. Write before read.
  const message = storedMessage(
    link,
    incoming,
    senderType,
    incoming.kind === 'action' ? 'action' : 'message',
  );
  const stored = await deps.store.putMessage(message);
  const after = await deps.store.readAfterStore(message);
  const conversation = after.conversation;
  if (!conversation) {
    await deps.store.withdrawMessage(message);
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  }
  if (FINISHED_STATUSES.has(conversation.status)) {
    // Stored a moment after the conversation ended: take it back, unless the closing Drain
    // already recorded it with the close (I3), and tell the sender, as for any later reply.
    if ((await deps.store.withdrawMessage(message)) === 'delivered') {
      return { type: 'ignored', conversationId, reason: "recorded with the conversation's close" };
    }
    return answerEnded(link, incoming, conversation, deps);
  }
  const pending = after.message !== undefined && after.message.deliveredInTurn === undefined;
  // A new participant is bookkeeping, not part of the protocol: recorded beside the wake.
  const [wake] = await Promise.all([
    wakeForStoredMessage(deps, conversation, { senderType, pending }),
    incoming.user in conversation.participants
      ? undefined
      : deps.store.addParticipant(conversationId, incoming.user, senderType),
  ]);
  return { type: 'stored', conversationId, senderType, messageType: message.messageType, stored, wake };
}

/**
 * A message that may be its owner's close ("never mind"): whether it closes depends on the
 * workflow (`closeOnIntent`), so the conversation is read first, as the protocol's long form.
 * Closes are rare; every other message takes the short form above.
 */
async function storeClosingCandidate(
  link: ThreadLink,
  incoming: Incoming,
  senderType: SenderType,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const conversation = await deps.store.getConversation(conversationId);
  if (!conversation)
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  if (FINISHED_STATUSES.has(conversation.status)) return answerEnded(link, incoming, conversation, deps);
  const closing = conversation.closeOnIntent && incoming.user === conversation.ownerId;
  const message = storedMessage(link, incoming, senderType, closing ? 'close' : 'message');
  const stored = await deps.store.putMessage(message);
  if (stored === 'duplicate') {
    // Its ts is stored already. A redelivery of this close completes it (a crash between the
    // store and the close); anything else under that ts, another text or a message that was
    // not a close, is an edit of what was stored, and an edit never closes or wakes.
    const first = (await deps.store.readAfterStore(message)).message;
    if (first?.messageType !== 'close' || first.text !== message.text)
      return {
        type: 'ignored',
        conversationId,
        reason: `${EDITED_MESSAGE}: ${incoming.ts} was stored before as ${first === undefined ? 'nothing readable' : `a ${first.messageType}${first.text === message.text ? '' : ' with other text'}`}; this version closes and wakes nothing`,
      };
  }
  if (!(incoming.user in conversation.participants)) {
    await deps.store.addParticipant(conversationId, incoming.user, senderType);
  }
  if (closing) await deps.store.requestClose(conversationId);
  // Write (above), then read (here): see kernel/register-wait.ts for the other half. A
  // duplicate delivery still runs the check, so a crash between store and wake is recovered.
  const wake = await wakeIfDue(deps, conversationId);
  return { type: 'stored', conversationId, senderType, messageType: message.messageType, stored, wake };
}

function storedMessage(
  link: ThreadLink,
  incoming: Incoming,
  senderType: SenderType,
  messageType: MessageType,
): StoredMessage {
  return {
    conversationId: link.conversationId,
    ts: incoming.ts,
    channel: incoming.channel,
    threadTs: link.anchor.threadTs,
    senderType,
    senderId: incoming.user,
    messageType,
    text: incoming.text,
    ...(incoming.actionId !== undefined ? { actionId: incoming.actionId } : {}),
    ...(incoming.actionValue !== undefined ? { actionValue: incoming.actionValue } : {}),
    ...(incoming.sourceId !== undefined ? { sourceId: incoming.sourceId } : {}),
    receivedAt: incoming.receivedAt,
  };
}
