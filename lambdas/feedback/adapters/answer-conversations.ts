import type { ConversationStore } from '../../kernel/ports.ts';
import type { AnswerConversation, AnswerConversations } from '../ports.ts';

/**
 * A lookup of conversations the kernel does not record by thread (channel answers): a
 * workflow's own entry supplies it, given the conversation id the feedback block names and
 * the channel the press came from, which it must check the conversation is in.
 */
export type NamedConversationLookup = (where: {
  channel: string;
  conversationId: string;
  /** The answer's message: its conversation may know the question it answered. */
  messageTs: string;
}) => Promise<AnswerConversation | undefined>;

/** The kernel's thread links first, then the named lookups (a workflow's entry may add one). */
export function answerConversations(
  store: Pick<ConversationStore, 'findThread' | 'getConversation' | 'listMessages'>,
  named: readonly NamedConversationLookup[] = [],
): AnswerConversations {
  return {
    async find(where) {
      const link = await store.findThread(where.channel, where.threadTs);
      if (link !== undefined) {
        const conversation = await store.getConversation(link.conversationId);
        if (conversation !== undefined) {
          const [first] = await store.listMessages(conversation.id);
          return {
            conversationId: conversation.id,
            workflow: conversation.workflow,
            request: first?.text ?? '',
          };
        }
      }
      if (where.conversationId === undefined) return undefined;
      for (const lookup of named) {
        const found = await lookup({
          channel: where.channel,
          conversationId: where.conversationId,
          messageTs: where.messageTs,
        });
        if (found !== undefined) return found;
      }
      return undefined;
    },
  };
}
