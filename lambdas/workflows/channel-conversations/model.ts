import * as z from 'zod';

/**
 * Channel conversations: the bot stays attentive in a channel after it is
 * addressed. One active conversation per channel, shared by every Router instance through
 * DynamoDB instead of the design's in-memory dictionary.
 */

/** One channel message seen while the conversation was active (the MessageRecord). */
export const ChannelMessage = z.object({
  ts: z.string().min(1),
  /** Present when the message was a reply in a thread. */
  threadTs: z.string().optional(),
  userId: z.string().min(1),
  text: z.string(),
  isBot: z.boolean(),
  /** When the Router recorded it (ISO 8601); for a message from the channel's history, when it was posted. */
  at: z.string(),
  /** Read from the channel's history when the conversation started (it came before the trigger). */
  fromHistory: z.literal(true).optional(),
});
export type ChannelMessage = z.infer<typeof ChannelMessage>;

/** One exchange the bot took part in: the message it answered and its reply (the model history). */
export const BotTurn = z.object({
  /** ts of the answered message; turns sort by it. */
  ts: z.string().min(1),
  userId: z.string().min(1),
  question: z.string(),
  answer: z.string(),
  /** ts of the bot's posted reply. */
  replyTs: z.string().min(1),
  at: z.string(),
});
export type BotTurn = z.infer<typeof BotTurn>;

/**
 * How a channel conversation ended before its timeout: the model could not serve it (it stayed
 * unavailable, or refused the calls), so it ended as failed, the people told why, as an agent
 * workflow's conversation ends on a model stop. `Error` and `Cause` as a workflow's failure
 * records them (kernel/stop-causes.ts); `ts` is the message whose answer failed.
 */
export const ChannelConversationEnd = z.object({
  status: z.literal('failed'),
  at: z.string(),
  ts: z.string().min(1),
  Error: z.string().min(1),
  Cause: z.string(),
});
export type ChannelConversationEnd = z.infer<typeof ChannelConversationEnd>;

/** The active conversation of one channel (the ChannelConversation, without its lists). */
export const ChannelConversation = z.object({
  channel: z.string().min(1),
  conversationId: z.string().min(1),
  startedAt: z.string(),
  /** Bumped by every message of anyone, the bot's replies included. */
  lastActivity: z.string(),
  /** When the bot last replied, for the recent follow-up tier. */
  botSpokeAt: z.string().optional(),
  participants: z.record(z.string(), z.literal(true)),
  /** Set when the conversation ended as failed; the channel's next explicit trigger starts another. */
  ended: ChannelConversationEnd.optional(),
});
export type ChannelConversation = z.infer<typeof ChannelConversation>;

/** The knobs of configuration (stack config `channelConversations`, env CHANNEL_CONVERSATIONS). */
export const ChannelSettingsSchema = z.strictObject({
  /** Seconds without any message after which a channel's conversation ends. @default 120 */
  timeoutSeconds: z.number().int().positive().default(120),
  /** Seconds after the bot spoke in which a follow-up-looking message is answered. @default 60 */
  followupWindowSeconds: z.number().int().min(0).default(60),
  /** Ask the judge model whether to answer ambiguous messages. @default false */
  useLlmJudge: z.boolean().default(false),
  /** The judge's (fast) model. @default 'claude-haiku-4-5' */
  judgeModelId: z.string().min(1).default('claude-haiku-4-5'),
  /**
   * Messages read from the channel (or the thread) before the trigger when a conversation
   * starts, so the first answer knows what was said (its "load recent messages").
   * 0 reads none. @default 20
   */
  recentHistoryMessages: z.number().int().min(0).max(100).default(20),
});
export type ChannelSettings = z.infer<typeof ChannelSettingsSchema>;

export const DEFAULT_CHANNEL_SETTINGS: ChannelSettings = ChannelSettingsSchema.parse({});

/** True while the conversation has seen a message within the timeout and has not ended as failed. */
export function isActive(conversation: ChannelConversation, now: Date, timeoutSeconds: number): boolean {
  if (conversation.ended !== undefined) return false;
  return now.getTime() - Date.parse(conversation.lastActivity) < timeoutSeconds * 1000;
}

/** The conversation id of a conversation started by the message `ts` in `channel` (deterministic, so a redelivered start finds its own). */
export function channelConversationId(channel: string, ts: string): string {
  return `channel-${channel}-${ts.replace('.', '-')}`;
}

/** Whether `id` is a channel conversation's (`channelConversationId`); the kernel's start with their workflow's name. */
export function isChannelConversationId(id: string): boolean {
  return /^channel-[A-Za-z0-9_]+-\d+-\d+$/.test(id);
}

/**
 * One recorded message of an active conversation, handed from the Router to the responder
 * through the channel replies queue (FIFO, grouped by channel, so a channel's messages are
 * decided and answered in order). The responder decides whether to answer it.
 */
export const ReplyJob = z.object({
  conversationId: z.string().min(1),
  channel: z.string().min(1),
  ts: z.string().min(1),
  threadTs: z.string().optional(),
  userId: z.string().min(1),
  text: z.string(),
  mentionsBot: z.boolean(),
  repliesToBot: z.boolean(),
  /** This message started the conversation: the responder reads the channel's recent history first. */
  started: z.boolean(),
  /** When the Router recorded the message (ISO 8601): the follow-up window is measured from it. */
  at: z.string(),
});
export type ReplyJob = z.infer<typeof ReplyJob>;

/** The replies queue's deduplication id: one job per message of a conversation. */
export function replyJobDeduplicationId(job: Pick<ReplyJob, 'conversationId' | 'ts'>): string {
  return `${job.conversationId}:${job.ts}`;
}
