import { MalformedModelReplyError, ModelCallError, ModelUnavailableError } from '../../agents/errors.ts';
import { isTransientModelFailure } from '../../agents/limits.ts';
import type { AgentLogger } from '../../agents/ports.ts';
import type { Clock } from '../../kernel/ports.ts';
import { type StoppedWork, stopSentence } from '../../kernel/stop-causes.ts';
import { SlackApiError } from '../../slack/errors.ts';
import { withFeedback } from '../../slack/templates/feedback.ts';
import type { SlackHistoryMessage, SlackPoster } from '../../slack/web-client.ts';
import { type Decision, type JudgeAsk, shouldRespond } from './decider.ts';
import { DailyBudgetSpentError } from './errors.ts';
import type {
  ChannelConversation,
  ChannelConversationEnd,
  ChannelMessage,
  ChannelSettings,
  ReplyJob,
} from './model.ts';
import type { ChannelHistory, ChannelStore } from './ports.ts';
import type { Answerer } from './respond.ts';
import { type ChannelSpending, dailyBudgetSpent } from './spending.ts';

/** What the responder needs: the table, the model (answer, judge) and Slack. */
export interface ResponderDeps {
  store: ChannelStore;
  clock: Clock;
  settings: ChannelSettings;
  answer: Answerer;
  slack: SlackPoster;
  history: ChannelHistory;
  botUserId: string | undefined;
  judge?: JudgeAsk;
  /** The daily ceiling and its counter; without it no model call is held. */
  spending?: ChannelSpending;
  logger: AgentLogger;
}

export type ReplyOutcome = {
  conversationId: string;
  decision: Decision;
  /**
   * `model_stopped`: the model could not serve the answer (it stayed unavailable through its
   * client's retries, or refused the call); the conversation ended as failed, the people told why.
   * `conversation_failed`: the message belongs to a conversation that ended so; not answered.
   * `apologized`: the model answered with something unusable; the bot said so instead.
   * `budget_spent`: the platform's daily model budget was reached; the bot said so, no model call.
   * `empty_apologized`: the model gave no text for a message addressed to the bot; the bot said so.
   */
  answer:
    | 'answered'
    | 'not_answered'
    | 'already_answered'
    | 'model_stopped'
    | 'conversation_failed'
    | 'apologized'
    | 'budget_spent'
    | 'empty_apologized';
  /** Messages read from the channel's history when this message started the conversation. */
  historyLoaded?: number;
};

/**
 * The responder's half of the design's flow, for one recorded message, in its channel's order:
 * on a conversation's first message read the channel's recent history, decide with the
 * three tiers, and answer at most once.
 */
export async function respondToMessage(job: ReplyJob, deps: ResponderDeps): Promise<ReplyOutcome> {
  const { conversationId } = job;
  const historyLoaded = job.started ? await loadRecentHistory(job, deps) : undefined;
  const loaded = historyLoaded === undefined ? {} : { historyLoaded };
  // Only what was said up to this message: a responder behind the channel answers each
  // message as it stood then, not with later messages it has not reached yet.
  const messages = (await deps.store.listMessages(conversationId)).filter((m) => m.ts <= job.ts);
  const conversation = await conversationOf(job, deps);
  const decision = await shouldRespond(
    { userId: job.userId, text: job.text, mentionsBot: job.mentionsBot, repliesToBot: job.repliesToBot },
    conversation,
    messages,
    new Date(job.at),
    {
      settings: deps.settings,
      ...(deps.judge ? { judge: heldJudge(deps.judge, deps.spending) } : {}),
      onJudgeError: (error) => deps.logger.warn('the judge failed; not answering', { conversationId, error }),
    },
  );
  deps.logger.info('channel conversation: should respond', { conversationId, ts: job.ts, ...decision });
  if (!decision.decision) return { conversationId, decision, answer: 'not_answered', ...loaded };

  // A redelivery of a message already answered stops before the model call.
  if (await deps.store.isAnswered(conversationId, job.ts)) {
    return { conversationId, decision, answer: 'already_answered', ...loaded };
  }
  // A conversation the model could not serve has ended: its later messages get no model call,
  // and the message it failed on is told why if that was not posted yet (a redelivery).
  if (conversation.ended !== undefined) {
    if (conversation.ended.ts !== job.ts)
      return { conversationId, decision, answer: 'conversation_failed', ...loaded };
    const told = await postOnce(job, deps, stopSentence(conversation.ended, CHANNEL_WORK));
    return { conversationId, decision, answer: told ? 'model_stopped' : 'already_answered', ...loaded };
  }
  // The daily ceiling is checked before the model call, as before an agent turn; once reached,
  // the asker is told so (at most once, like an answer) instead of being left unanswered.
  const spent = await dailyBudgetSpent(deps.spending);
  if (spent !== undefined) {
    deps.logger.warn('the daily model budget is spent; not calling the model', {
      conversationId,
      ts: job.ts,
      reason: spent,
    });
    const told = await postOnce(job, deps, budgetSpentText(spent));
    return { conversationId, decision, answer: told ? 'budget_spent' : 'already_answered', ...loaded };
  }
  const turns = (await deps.store.listBotTurns(conversationId)).filter((turn) => turn.ts < job.ts);
  // The model first, then the claim: two deliveries at once may both ask the model; only the
  // claim's winner posts. A model that fails after its client's retries gets an apology in its
  // place, not a queue retry: the retry would come minutes later (the queue's visibility
  // timeout), with the channel's later messages held behind it.
  let text: string;
  try {
    text = await deps.answer({
      channel: job.channel,
      messages,
      turns,
      message: { userId: job.userId, text: job.text },
    });
  } catch (error) {
    if (error instanceof DailyBudgetSpentError) {
      // Another answer reserved the rest of the day's budget between the check above and this call.
      deps.logger.warn('the daily model budget is spent; the model was not called', {
        conversationId,
        ts: job.ts,
        reason: error.reason,
      });
      const told = await postOnce(job, deps, budgetSpentText(error.reason));
      return { conversationId, decision, answer: told ? 'budget_spent' : 'already_answered', ...loaded };
    }
    if (error instanceof ModelCallError)
      return { conversationId, decision, ...(await modelStopped(job, error, deps)), ...loaded };
    if (!(error instanceof MalformedModelReplyError)) throw error;
    deps.logger.error('the model answered with something unusable; apologizing instead of answering', {
      conversationId,
      ts: job.ts,
      error,
    });
    return { conversationId, decision, ...(await apologize(job, deps)), ...loaded };
  }
  if (text === '') {
    // Someone who addressed the bot (a mention, a reply to it) is owed an answer, even if only
    // an apology; a message the judge picked up was not addressed to it, and silence is fine.
    const addressed = job.mentionsBot || job.repliesToBot;
    deps.logger.warn(`the model gave no answer text; ${addressed ? 'apologizing' : 'not posting'}`, {
      conversationId,
      ts: job.ts,
    });
    if (!addressed) return { conversationId, decision, answer: 'not_answered', ...loaded };
    const told = await postOnce(job, deps, NO_ANSWER_APOLOGY);
    return { conversationId, decision, answer: told ? 'empty_apologized' : 'already_answered', ...loaded };
  }
  if ((await deps.store.claimAnswer(conversationId, job.ts)) === 'taken') {
    return { conversationId, decision, answer: 'already_answered', ...loaded };
  }
  const thread = job.threadTs !== undefined ? { threadTs: job.threadTs } : {};
  const posted = await postClaimed(job, deps, {
    channel: job.channel,
    text,
    ...thread,
    blocks: withFeedback({ text }, 'channel_answer', conversationId),
  });
  const at = deps.clock.now().toISOString();
  await deps.store.rememberBotMessage(job.channel, posted.ts);
  await deps.store.recordMessage(conversationId, job.channel, {
    ts: posted.ts,
    ...thread,
    userId: deps.botUserId ?? 'bot',
    text,
    isBot: true,
    at,
  });
  await deps.store.recordBotTurn(conversationId, job.channel, {
    ts: job.ts,
    userId: job.userId,
    question: job.text,
    answer: text,
    replyTs: posted.ts,
    at,
  });
  return { conversationId, decision, answer: 'answered', ...loaded };
}

/** What stopped, in the words of the sentences that tell people (kernel/stop-causes.ts). */
const CHANNEL_WORK: StoppedWork = { work: 'conversation', restart: 'Mention me again' };

/**
 * The rule every workflow follows when the model cannot serve it (statemachines/model-stops.ts),
 * in a channel conversation's terms: the conversation ends as failed, with the model's error and
 * cause, and the people are told why and what to do, in the answer's place (at most once). It is
 * not retried: the channel's later messages would wait behind it, and a model that stayed down
 * through its client's retries, or refused the call, gives no answer minutes later either.
 */
async function modelStopped(
  job: ReplyJob,
  error: ModelCallError,
  deps: ResponderDeps,
): Promise<{ answer: 'model_stopped' | 'already_answered' }> {
  const stop = isTransientModelFailure(error.details)
    ? new ModelUnavailableError(error.message, { cause: error })
    : error;
  deps.logger.error('the model cannot answer: the conversation ends as failed', {
    conversationId: job.conversationId,
    ts: job.ts,
    error,
  });
  const end: ChannelConversationEnd = {
    status: 'failed',
    at: deps.clock.now().toISOString(),
    ts: job.ts,
    Error: stop.name,
    Cause: stop.message,
  };
  await deps.store.endConversation(job.channel, job.conversationId, end);
  const told = await postOnce(job, deps, stopSentence(end, CHANNEL_WORK));
  return { answer: told ? 'model_stopped' : 'already_answered' };
}

/** The bot's apology when the model gave no text for a message addressed to it. */
const NO_ANSWER_APOLOGY =
  "Sorry, I couldn't come up with an answer to that. Could you ask it again, perhaps with a bit more detail?";

/** What the bot says instead of an answer once the platform's daily model budget is spent. */
function budgetSpentText(reason: string): string {
  return `Sorry, I can't answer that today: the platform's daily model budget is spent (${reason}).`;
}

/** The bot's apology for an answer the model gave but that cannot be used, posted at most once like an answer. */
async function apologize(
  job: ReplyJob,
  deps: ResponderDeps,
): Promise<{ answer: 'apologized' | 'already_answered' }> {
  return { answer: (await postOnce(job, deps, NO_ANSWER_APOLOGY)) ? 'apologized' : 'already_answered' };
}

/**
 * Posts what the claim of `job`'s answer was taken for. When Slack refused the post, nothing was
 * posted: the claim is given back for the retry. When Slack could not be reached the post may
 * have landed; the claim stays (never twice).
 */
async function postClaimed(
  job: ReplyJob,
  deps: ResponderDeps,
  args: Parameters<ResponderDeps['slack']['postMessage']>[0],
): Promise<{ ts: string }> {
  try {
    return await deps.slack.postMessage(args);
  } catch (error) {
    if (error instanceof SlackApiError) await deps.store.releaseAnswer(job.conversationId, job.ts);
    throw error;
  }
}

/** Posts `text` in the answer's place under the answer's claim; false when the claim was taken. */
async function postOnce(job: ReplyJob, deps: ResponderDeps, text: string): Promise<boolean> {
  if ((await deps.store.claimAnswer(job.conversationId, job.ts)) === 'taken') return false;
  const thread = job.threadTs !== undefined ? { threadTs: job.threadTs } : {};
  const posted = await postClaimed(job, deps, { channel: job.channel, text, ...thread });
  await deps.store.rememberBotMessage(job.channel, posted.ts);
  return true;
}

/**
 * The judge behind the daily ceiling: once it is reached the judge is not asked, and the
 * decider takes that as a failed judge (do not answer). Saying the budget is spent to a
 * message that may not be for the bot would be noise; explicit triggers still hear it.
 */
function heldJudge(judge: JudgeAsk, spending: ChannelSpending | undefined): JudgeAsk {
  return async (prompt) => {
    const spent = await dailyBudgetSpent(spending);
    if (spent !== undefined) throw new DailyBudgetSpentError(spent);
    return judge(prompt);
  };
}

/**
 * The conversation as the decider needs it (when the bot last spoke). When the channel has
 * moved on to a newer conversation, this message's conversation has ended: no recent bot turn.
 */
async function conversationOf(job: ReplyJob, deps: ResponderDeps): Promise<ChannelConversation> {
  const current = await deps.store.getConversation(job.channel);
  if (current?.conversationId === job.conversationId) return current;
  return {
    channel: job.channel,
    conversationId: job.conversationId,
    startedAt: job.at,
    lastActivity: job.at,
    participants: {},
  };
}

/**
 * The "load recent messages" on a start: what was said before the trigger, kept as
 * the conversation's context. Slack failing here costs context, not the answer: logged, and
 * the answer goes on without it.
 */
async function loadRecentHistory(job: ReplyJob, deps: ResponderDeps): Promise<number> {
  const limit = deps.settings.recentHistoryMessages;
  if (limit === 0) return 0;
  let recent: SlackHistoryMessage[];
  try {
    recent = await deps.history.recentMessages({
      channel: job.channel,
      before: job.ts,
      ...(job.threadTs !== undefined ? { threadTs: job.threadTs } : {}),
      limit,
    });
  } catch (error) {
    deps.logger.warn('could not read the channel history; answering without it', {
      conversationId: job.conversationId,
      error,
    });
    return 0;
  }
  const messages: ChannelMessage[] = recent.map((m) => ({
    ts: m.ts,
    ...(job.threadTs !== undefined && m.ts !== job.threadTs ? { threadTs: job.threadTs } : {}),
    userId: m.userId,
    text: m.text,
    // The bot's own earlier messages are its words; another bot is one more participant.
    isBot: deps.botUserId !== undefined && m.userId === deps.botUserId,
    at: slackTsToIso(m.ts),
    fromHistory: true,
  }));
  await deps.store.recordHistory(job.conversationId, messages);
  return messages.length;
}

/** Slack's `ts` is seconds since the epoch with microseconds: `1700000000.000100`. */
function slackTsToIso(ts: string): string {
  const seconds = Number(ts);
  return Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : new Date(0).toISOString();
}
