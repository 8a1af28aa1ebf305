import type { AgentLogger } from '../../agents/ports.ts';
import type { Clock, UnownedOutcome } from '../../kernel/ports.ts';
import { type IncomingMessage, shouldStartConversation } from './decider.ts';
import { type ChannelConversation, type ChannelSettings, channelConversationId, isActive } from './model.ts';
import type { ChannelStore, ReplyQueue } from './ports.ts';

/** A channel message no workflow and no thread owns (what the Router hands over). */
export interface ChannelEnvelope {
  channel: string;
  user: string;
  text: string;
  ts: string;
  threadTs?: string | undefined;
  mentionsBot: boolean;
}

/** What the Router's part needs: the table and the replies queue, no model and no Slack. */
export interface ChannelRouterDeps {
  store: ChannelStore;
  replies: ReplyQueue;
  clock: Clock;
  settings: Pick<ChannelSettings, 'timeoutSeconds'>;
  botUserId: string | undefined;
  logger: AgentLogger;
}

/** What the Router's hook did with a channel message (the kernel's `UnownedOutcome`). */
export type ChannelOutcome = UnownedOutcome;

/**
 * The Router's half of the design's message flow on shared state: record the message in the
 * channel's active conversation (or start one on an explicit trigger), then hand it to the
 * responder, which decides and answers in the channel's order. The Router stays fast: no
 * model call and no Slack call happen here.
 */
export async function handleChannelMessage(
  envelope: ChannelEnvelope,
  deps: ChannelRouterDeps,
): Promise<ChannelOutcome> {
  if (deps.botUserId !== undefined && envelope.user === deps.botUserId) {
    return { type: 'ignored', reason: "the bot's own message" };
  }
  const now = deps.clock.now();
  const incoming: IncomingMessage = {
    userId: envelope.user,
    text: envelope.text,
    mentionsBot: envelope.mentionsBot,
    repliesToBot:
      envelope.threadTs !== undefined && (await deps.store.isBotMessage(envelope.channel, envelope.threadTs)),
  };
  const conversation = await activeOrStarted(envelope, incoming, now, deps);
  if (!conversation) return { type: 'ignored', reason: 'no active conversation and no explicit trigger' };

  const { conversationId } = conversation.conversation;
  const at = now.toISOString();
  const stored = await deps.store.recordMessage(conversationId, envelope.channel, {
    ts: envelope.ts,
    ...(envelope.threadTs !== undefined ? { threadTs: envelope.threadTs } : {}),
    userId: envelope.user,
    text: envelope.text,
    isBot: false,
    at,
  });
  // Handed over on a duplicate too: a crash between the record and the hand-over is recovered
  // on redelivery. The queue drops a second job within five minutes; the responder's answer
  // claim covers a later one.
  await deps.replies.enqueue({
    conversationId,
    channel: envelope.channel,
    ts: envelope.ts,
    ...(envelope.threadTs !== undefined ? { threadTs: envelope.threadTs } : {}),
    userId: envelope.user,
    text: envelope.text,
    mentionsBot: incoming.mentionsBot,
    repliesToBot: incoming.repliesToBot,
    started: conversation.started,
    at,
  });
  return { type: 'recorded', conversationId, started: conversation.started, stored };
}

async function activeOrStarted(
  envelope: ChannelEnvelope,
  incoming: IncomingMessage,
  now: Date,
  deps: ChannelRouterDeps,
): Promise<{ conversation: ChannelConversation; started: boolean } | undefined> {
  const current = await deps.store.getConversation(envelope.channel);
  if (current && isActive(current, now, deps.settings.timeoutSeconds)) {
    // A redelivered trigger finds the conversation it started, and says so again.
    const started = current.conversationId === channelConversationId(envelope.channel, envelope.ts);
    return { conversation: current, started };
  }
  const start = shouldStartConversation(incoming);
  deps.logger.info('channel conversation: should start', {
    channel: envelope.channel,
    ts: envelope.ts,
    ...start,
  });
  if (!start.decision) return undefined;
  const at = now.toISOString();
  const candidate: ChannelConversation = {
    channel: envelope.channel,
    conversationId: channelConversationId(envelope.channel, envelope.ts),
    startedAt: at,
    lastActivity: at,
    participants: {},
  };
  const expiredBefore = new Date(now.getTime() - deps.settings.timeoutSeconds * 1000).toISOString();
  const conversation = await deps.store.startConversation(candidate, expiredBefore);
  return { conversation, started: conversation.conversationId === candidate.conversationId };
}
