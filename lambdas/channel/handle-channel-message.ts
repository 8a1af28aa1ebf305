import type { AgentLogger } from '../agents/ports.ts';
import type { Clock } from '../kernel/ports.ts';
import type { SlackPoster } from '../slack/web-client.ts';
import {
  type Decision,
  type IncomingMessage,
  type JudgeAsk,
  shouldRespond,
  shouldStartConversation,
} from './decider.ts';
import { type ChannelConversation, type ChannelSettings, channelConversationId, isActive } from './model.ts';
import type { ChannelStore } from './ports.ts';
import type { Answerer } from './respond.ts';

/** A channel message no workflow and no thread owns (what the Router hands over). */
export interface ChannelEnvelope {
  channel: string;
  user: string;
  text: string;
  ts: string;
  threadTs?: string | undefined;
  mentionsBot: boolean;
}

export interface ChannelDeps {
  store: ChannelStore;
  clock: Clock;
  settings: ChannelSettings;
  answer: Answerer;
  slack: SlackPoster;
  botUserId: string | undefined;
  judge?: JudgeAsk;
  logger: AgentLogger;
}

export type ChannelOutcome =
  | { type: 'ignored'; reason: string }
  | {
      type: 'recorded';
      conversationId: string;
      started: boolean;
      stored: 'stored' | 'duplicate';
      decision: Decision;
      answer: 'answered' | 'not_answered' | 'already_answered';
    };

/**
 * The seed's message flow on shared state: record the message in the channel's active
 * conversation (or start one on an explicit trigger), decide, and answer at most once.
 */
export async function handleChannelMessage(
  envelope: ChannelEnvelope,
  deps: ChannelDeps,
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

  const stored = await deps.store.recordMessage(conversation.conversation.conversationId, envelope.channel, {
    ts: envelope.ts,
    ...(envelope.threadTs !== undefined ? { threadTs: envelope.threadTs } : {}),
    userId: envelope.user,
    text: envelope.text,
    isBot: false,
    at: now.toISOString(),
  });
  const { conversationId } = conversation.conversation;
  const messages = await deps.store.listMessages(conversationId);
  const decision = await shouldRespond(incoming, conversation.conversation, messages, now, {
    settings: deps.settings,
    ...(deps.judge ? { judge: deps.judge } : {}),
    onJudgeError: (error) => deps.logger.warn('the judge failed; not answering', { conversationId, error }),
  });
  deps.logger.info('channel conversation: should respond', { conversationId, ts: envelope.ts, ...decision });
  const base = { type: 'recorded' as const, conversationId, started: conversation.started, stored, decision };
  if (!decision.decision) return { ...base, answer: 'not_answered' };

  // Claim first: a redelivery or a concurrent instance finds the claim and stays quiet. A
  // crash after the claim loses that answer, which is the price of never answering twice.
  if ((await deps.store.claimAnswer(conversationId, envelope.ts)) === 'taken') {
    return { ...base, answer: 'already_answered' };
  }
  const turns = await deps.store.listBotTurns(conversationId);
  const text = await deps.answer({
    channel: envelope.channel,
    messages,
    turns,
    message: { userId: envelope.user, text: envelope.text },
  });
  if (text === '') {
    deps.logger.warn('the model gave no answer text; not posting', { conversationId, ts: envelope.ts });
    return { ...base, answer: 'not_answered' };
  }
  const posted = await deps.slack.postMessage({
    channel: envelope.channel,
    text,
    ...(envelope.threadTs !== undefined ? { threadTs: envelope.threadTs } : {}),
  });
  const at = deps.clock.now().toISOString();
  await deps.store.rememberBotMessage(envelope.channel, posted.ts);
  await deps.store.recordMessage(conversationId, envelope.channel, {
    ts: posted.ts,
    ...(envelope.threadTs !== undefined ? { threadTs: envelope.threadTs } : {}),
    userId: deps.botUserId ?? 'bot',
    text,
    isBot: true,
    at,
  });
  await deps.store.recordBotTurn(conversationId, envelope.channel, {
    ts: envelope.ts,
    userId: envelope.user,
    question: envelope.text,
    answer: text,
    replyTs: posted.ts,
    at,
  });
  return { ...base, answer: 'answered' };
}

async function activeOrStarted(
  envelope: ChannelEnvelope,
  incoming: IncomingMessage,
  now: Date,
  deps: ChannelDeps,
): Promise<{ conversation: ChannelConversation; started: boolean } | undefined> {
  const current = await deps.store.getConversation(envelope.channel);
  if (current && isActive(current, now, deps.settings.timeoutSeconds)) {
    return { conversation: current, started: false };
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
