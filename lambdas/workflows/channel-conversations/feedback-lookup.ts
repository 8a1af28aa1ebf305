import type { AnswerConversation } from '../../feedback/ports.ts';
import type { BotTurn, ChannelMessage } from './model.ts';

/** The channel conversations' workflow name, as the feedback and the console show it. */
export const CHANNEL_CONVERSATIONS_WORKFLOW = 'channel_conversations';

export interface ChannelFeedbackReads {
  listMessages(conversationId: string): Promise<ChannelMessage[]>;
  listBotTurns(conversationId: string): Promise<BotTurn[]>;
}

/**
 * The conversation of a channel answer someone gave feedback on, by the id its feedback
 * block names. The id begins with the channel it lives in (`channel-<channel>-<ts>`), so a
 * press from another channel naming it finds nothing. The request is the question the
 * answer answered, or else the conversation's first message.
 */
export function channelAnswerLookup(store: ChannelFeedbackReads) {
  return async (where: {
    channel: string;
    conversationId: string;
    messageTs: string;
  }): Promise<AnswerConversation | undefined> => {
    if (!where.conversationId.startsWith(`channel-${where.channel}-`)) return undefined;
    const messages = await store.listMessages(where.conversationId);
    if (messages.length === 0) return undefined;
    const turn = (await store.listBotTurns(where.conversationId)).find((t) => t.replyTs === where.messageTs);
    const first = messages.find((m) => !m.isBot);
    return {
      conversationId: where.conversationId,
      workflow: CHANNEL_CONVERSATIONS_WORKFLOW,
      request: turn?.question ?? first?.text ?? '',
    };
  };
}
