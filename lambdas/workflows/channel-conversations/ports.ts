import type { Ledger } from '../../kernel/model.ts';
import type { SlackHistoryReader } from '../../slack/web-client.ts';
import type {
  BotTurn,
  ChannelConversation,
  ChannelConversationEnd,
  ChannelMessage,
  ReplyJob,
} from './model.ts';

/** Where channel conversations live; the DynamoDB adapter uses conditional writes only. */
export interface ChannelStore {
  /** The channel's conversation record, expired or not (strongly consistent). */
  getConversation(channel: string): Promise<ChannelConversation | undefined>;
  /**
   * Starts `conversation` unless the channel has one with activity after `expiredBefore`.
   * Returns the channel's active conversation afterwards: this one, or the one another
   * instance started first.
   */
  startConversation(conversation: ChannelConversation, expiredBefore: string): Promise<ChannelConversation>;
  /**
   * Ends the channel's conversation `conversationId` as failed (kept as it ended on a redelivery);
   * nothing when the channel has moved on to another.
   */
  endConversation(channel: string, conversationId: string, end: ChannelConversationEnd): Promise<void>;
  /** Stores the message once (`duplicate` on redelivery), bumps last activity and adds the participant. */
  recordMessage(
    conversationId: string,
    channel: string,
    message: ChannelMessage,
  ): Promise<'stored' | 'duplicate'>;
  /**
   * Stores messages from the channel's history (before the trigger) once each, without
   * bumping last activity or adding participants: they are context, not activity.
   */
  recordHistory(conversationId: string, messages: readonly ChannelMessage[]): Promise<void>;
  listMessages(conversationId: string): Promise<ChannelMessage[]>;
  /** Claims the answer to message `ts`: `taken` when another delivery already claimed it. */
  claimAnswer(conversationId: string, ts: string): Promise<'claimed' | 'taken'>;
  /** Whether the answer to message `ts` is claimed. */
  isAnswered(conversationId: string, ts: string): Promise<boolean>;
  /** Gives a claim back when its answer was certainly not posted, so a retry can answer. */
  releaseAnswer(conversationId: string, ts: string): Promise<void>;
  /** Stores the bot's turn and marks when it spoke. */
  recordBotTurn(conversationId: string, channel: string, turn: BotTurn): Promise<void>;
  listBotTurns(conversationId: string): Promise<BotTurn[]>;
  /**
   * Adds to the conversation's ledger (a channel conversation has no kernel record to hold one):
   * its model calls' tokens and cost, the values redacted in it, the responder's time.
   */
  addToLedger(conversationId: string, delta: Partial<Ledger>): Promise<void>;
  /** The conversation's ledger, as far as anything was counted (empty when nothing was). */
  getLedger(conversationId: string): Promise<Partial<Ledger>>;
  /** Remembers a message the bot posted, so a reply in its thread is an explicit trigger. */
  rememberBotMessage(channel: string, ts: string): Promise<void>;
  isBotMessage(channel: string, ts: string): Promise<boolean>;
}

/** Where the Router hands recorded messages to the responder (an SQS FIFO queue grouped by channel). */
export interface ReplyQueue {
  enqueue(job: ReplyJob): Promise<void>;
}

/** Reads what was said in a channel before a message; the Slack adapter implements it. */
export type ChannelHistory = SlackHistoryReader;
