import { FINISHED_STATUSES, type StoredMessage } from './model.ts';
import type { ThreadLink } from './ports.ts';
import {
  EDITED_MESSAGE,
  type Ended,
  type Incoming,
  type RouteOutcome,
  type RouterDeps,
} from './route-types.ts';
import { wakeIfDue } from './wake.ts';

/**
 * A message that may be its owner's close ("never mind"): whether it closes depends on the
 * workflow (`closeOnIntent`), so the conversation is read first, as the protocol's long form.
 * Closes are rare; every other message takes route-store.ts's short form.
 */
export async function storeClose(
  link: ThreadLink,
  incoming: Incoming,
  message: Omit<StoredMessage, 'messageType'>,
  deps: RouterDeps,
): Promise<RouteOutcome | Ended> {
  const conversationId = link.conversationId;
  const conversation = await deps.store.getConversation(conversationId);
  if (!conversation)
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  if (FINISHED_STATUSES.has(conversation.status)) return { type: 'ended', link, incoming, conversation };
  const closing = conversation.closeOnIntent && incoming.user === conversation.ownerId;
  const stored: StoredMessage = { ...message, messageType: closing ? 'close' : 'message' };
  const put = await deps.store.putMessage(stored);
  if (put === 'duplicate') {
    // Its ts is stored already. A redelivery of this close completes it (a crash between the
    // store and the close); anything else under that ts, another text or a message that was
    // not a close, is an edit of what was stored, and an edit never closes or wakes.
    const first = (await deps.store.readAfterStore(stored)).message;
    if (first?.messageType !== 'close' || first.text !== stored.text)
      return {
        type: 'ignored',
        conversationId,
        reason: `${EDITED_MESSAGE}: ${incoming.ts} was stored before as ${first === undefined ? 'nothing readable' : `a ${first.messageType}${first.text === stored.text ? '' : ' with other text'}`}; this version closes and wakes nothing`,
      };
  }
  if (!(incoming.user in conversation.participants)) {
    await deps.store.addParticipant(conversationId, incoming.user, stored.senderType);
  }
  if (closing) await deps.store.requestClose(conversationId);
  // Write (above), then read (here): see kernel/register-wait.ts for the other half. A
  // duplicate delivery still runs the check, so a crash between store and wake is recovered.
  const wake = await wakeIfDue(deps, conversationId);
  return {
    type: 'stored',
    conversationId,
    senderType: stored.senderType,
    messageType: stored.messageType,
    stored: put,
    wake,
  };
}
