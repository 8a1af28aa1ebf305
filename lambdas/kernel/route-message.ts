import type { InboxMessage } from './inbox.ts';
import { startConversation } from './route-start.ts';
import { storeIncoming } from './route-store.ts';
import { ownedChannel, startedByMessage, withoutLeadingMention } from './route-triggers.ts';
import { EDITED_MESSAGE, partOf, type Routed, type RouterDeps } from './route-types.ts';
import { isStopText, routeStop } from './stop.ts';

/**
 * A Slack message. A reply belongs to whichever conversation owns its thread (the mapping is
 * stored, not guessed): `stop` alone stops its turn, anything else is stored and may wake it.
 * A top-level message, or the first of the app's assistant thread, can only start a
 * conversation (a redelivered one completes its start). What neither does is left to the
 * Router's additions (channel conversations), unless a workflow owns the channel.
 */
export async function routeMessage(envelope: InboxMessage, deps: RouterDeps): Promise<Routed> {
  // The ingress ignores edits; this holds behind it: an edit starts, stores, closes and wakes nothing.
  if (envelope.edited === true)
    return { type: 'ignored', reason: `${EDITED_MESSAGE}: an edit is never a new act of its sender` };
  const registration = startedByMessage(envelope, deps.workflows, deps.botUserId);
  const reason =
    envelope.threadTs === undefined
      ? 'top-level message that starts no workflow here'
      : 'reply in a thread no conversation owns';
  // A channel whose top-level messages start a workflow keeps its threads from the additions.
  const kept = envelope.threadTs !== undefined && ownedChannel(deps.workflows, envelope.channel);
  const sent = { user: envelope.user, channel: envelope.channel, ts: envelope.ts };
  // A reply's sender is known by the thread; the owner's close intent counts in their own thread.
  const incoming = {
    kind: 'message',
    ...sent,
    text: envelope.text,
    receivedAt: envelope.receivedAt,
    closable: true,
  } as const;
  // A start opens the thread a reply is in, or the message's own; its text is the message
  // without the mention that addressed the bot.
  const start = {
    ...sent,
    threadTs: envelope.threadTs ?? envelope.ts,
    text: withoutLeadingMention(envelope.text, deps.botUserId),
    receivedAt: envelope.receivedAt,
  };
  const link =
    envelope.threadTs === undefined
      ? undefined
      : await deps.store.findThread(envelope.channel, envelope.threadTs);
  if (link)
    return partOf(link.conversationId, deps, () =>
      isStopText(envelope.text) ? routeStop(link, sent, deps) : storeIncoming(link, incoming, deps),
    );
  if (registration) return startConversation(registration, start, deps);
  return { type: kept ? 'ignored' : 'unrouted', reason };
}
