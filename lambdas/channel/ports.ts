import type { BotTurn, ChannelConversation, ChannelMessage } from './model.ts';

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
  /** Stores the message once (`duplicate` on redelivery), bumps last activity and adds the participant. */
  recordMessage(
    conversationId: string,
    channel: string,
    message: ChannelMessage,
  ): Promise<'stored' | 'duplicate'>;
  listMessages(conversationId: string): Promise<ChannelMessage[]>;
  /** Claims the answer to message `ts`: `taken` when another delivery already claimed it. */
  claimAnswer(conversationId: string, ts: string): Promise<'claimed' | 'taken'>;
  /** Stores the bot's turn and marks when it spoke. */
  recordBotTurn(conversationId: string, channel: string, turn: BotTurn): Promise<void>;
  listBotTurns(conversationId: string): Promise<BotTurn[]>;
  /** Remembers a message the bot posted, so a reply in its thread is an explicit trigger. */
  rememberBotMessage(channel: string, ts: string): Promise<void>;
  isBotMessage(channel: string, ts: string): Promise<boolean>;
}
