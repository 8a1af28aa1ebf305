import { PEOPLE_DATA_HEADER } from '../../kernel/people-text.ts';
import type { ChannelConversation, ChannelMessage, ChannelSettings } from './model.ts';
import { channelLine } from './respond.ts';

/** The facts about one incoming message the decider looks at. */
export interface IncomingMessage {
  userId: string;
  text: string;
  /** The bot was mentioned. */
  mentionsBot: boolean;
  /** A reply in the thread of one of the bot's messages. */
  repliesToBot: boolean;
}

/** Why the decider answered as it did: the design's reason strings, logged with every decision. */
export const REASONS = {
  explicitTrigger: 'explicit_trigger',
  recentFollowup: 'recent_followup',
  llmJudge: 'llm_judge',
  llmJudgeFailed: 'llm_judge_failed',
  noTrigger: 'no_trigger',
  addressedElsewhere: 'addressed_elsewhere',
} as const;
export type Reason = (typeof REASONS)[keyof typeof REASONS];

export interface Decision {
  decision: boolean;
  reason: Reason;
}

/** Asks a fast model the judge's question; resolves to its raw answer text. */
export type JudgeAsk = (prompt: string) => Promise<string>;

export interface DeciderDeps {
  settings: ChannelSettings;
  /** Required when `settings.useLlmJudge`; without it the third tier is off. */
  judge?: JudgeAsk;
  /** Told about a judge failure (the decision is then: do not answer). */
  onJudgeError?: (error: unknown) => void;
}

function isExplicitTrigger(message: IncomingMessage): boolean {
  return message.mentionsBot || message.repliesToBot;
}

/** Only explicit triggers start a conversation (the first tier). */
export function shouldStartConversation(message: IncomingMessage): Decision {
  return isExplicitTrigger(message)
    ? { decision: true, reason: REASONS.explicitTrigger }
    : { decision: false, reason: REASONS.noTrigger };
}

/** The design's heuristic: a short question, or a message opening with a continuation word. */
function looksLikeFollowup(text: string): boolean {
  const content = text.toLowerCase();
  const words = content.split(/\s+/).filter((word) => word !== '');
  if (words.length < 10 && content.includes('?')) return true;
  const starters = ['and ', 'also ', 'what about ', 'how about ', 'why ', 'but '];
  return starters.some((starter) => content.startsWith(starter));
}

/**
 * A message that opens by addressing someone else (`<@U123> can you...`) is a side
 * conversation, not for the bot, however much it looks like a follow-up.
 */
export function opensAddressingSomeoneElse(message: IncomingMessage): boolean {
  return /^\s*<@[A-Z0-9_]+(\|[^>]*)?>/i.test(message.text);
}

/**
 * Whether the judge should be asked: anything in an active conversation that does not open by
 * addressing someone else (those are not ambiguous, so no model call).
 */
export function isAmbiguous(message: IncomingMessage): boolean {
  return !opensAddressingSomeoneElse(message);
}

/** The judge's question over the conversation's most recent messages. */
function judgePrompt(message: IncomingMessage, recent: readonly ChannelMessage[]): string {
  const lines = recent.slice(-10).map(channelLine);
  return `You're a Slack bot in an active conversation. ${PEOPLE_DATA_HEADER} Messages with the role "bot" are yours.

Recent messages:
${lines.join('\n')}

New message:
${channelLine(message)}

Should you respond to this message?
- YES if it's directed at you or continues the discussion you're part of
- NO if it's a side conversation or not meant for you

Answer only YES or NO.`;
}

/**
 * The three tiers: an explicit trigger always answers; a message opening by addressing someone
 * else never does (a side conversation); a follow-up-looking
 * message within the follow-up window after the bot spoke answers; otherwise the LLM judge
 * decides ambiguous messages when it is on, and its failure means do not answer.
 */
export async function shouldRespond(
  message: IncomingMessage,
  conversation: ChannelConversation,
  recent: readonly ChannelMessage[],
  now: Date,
  deps: DeciderDeps,
): Promise<Decision> {
  if (isExplicitTrigger(message)) return { decision: true, reason: REASONS.explicitTrigger };
  if (opensAddressingSomeoneElse(message)) return { decision: false, reason: REASONS.addressedElsewhere };
  if (conversation.botSpokeAt !== undefined) {
    const seconds = (now.getTime() - Date.parse(conversation.botSpokeAt)) / 1000;
    if (seconds < deps.settings.followupWindowSeconds && looksLikeFollowup(message.text)) {
      return { decision: true, reason: REASONS.recentFollowup };
    }
  }
  if (deps.settings.useLlmJudge && deps.judge && isAmbiguous(message)) {
    try {
      const answer = await deps.judge(judgePrompt(message, recent));
      return { decision: answer.trim().toUpperCase() === 'YES', reason: REASONS.llmJudge };
    } catch (error) {
      deps.onJudgeError?.(error);
      return { decision: false, reason: REASONS.llmJudgeFailed };
    }
  }
  return { decision: false, reason: REASONS.noTrigger };
}
