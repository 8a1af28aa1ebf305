import { ConversationNotFoundError } from '../kernel/errors.ts';
import type { Clock, ConversationStore } from '../kernel/ports.ts';
import type { SlackPostInput, SlackPostOutput } from '../kernel/tasks.ts';
import { renderTemplate } from './templates/index.ts';
import type { PostMessageArgs, SlackPoster } from './web-client.ts';

export interface PostDeps {
  store: ConversationStore;
  slack: SlackPoster;
  clock: Clock;
  botUserId: string;
  /** Idempotency records of earlier posts (kept beside the conversation). */
  posts: PostLedger;
}

export interface PostLedger {
  find(conversationId: string, key: string): Promise<SlackPostOutput | undefined>;
  record(conversationId: string, key: string, output: SlackPostOutput): Promise<void>;
}

/**
 * Posts for a workflow and records the post in the conversation's history (so the history
 * tool shows the bot's side too). With `anchor`, the posted thread becomes the conversation's:
 * replies in it are routed here.
 */
export async function postToSlack(input: SlackPostInput, deps: PostDeps): Promise<SlackPostOutput> {
  if (input.idempotencyKey) {
    const earlier = await deps.posts.find(input.conversationId, input.idempotencyKey);
    if (earlier) return earlier;
  }
  const conversation = await deps.store.getConversation(input.conversationId);
  if (!conversation) throw new ConversationNotFoundError(input.conversationId);
  const message = messageOf(input);
  const posted = await deps.slack.postMessage(message);
  const output: SlackPostOutput = {
    channel: posted.channel,
    ts: posted.ts,
    threadTs: input.threadTs ?? posted.ts,
  };
  if (input.idempotencyKey) await deps.posts.record(input.conversationId, input.idempotencyKey, output);
  if (input.anchor) {
    await deps.store.linkThread({
      conversationId: input.conversationId,
      ownerId: conversation.ownerId,
      anchor: { ...input.anchor, channel: output.channel, threadTs: output.threadTs },
    });
  }
  await deps.store.putMessage({
    conversationId: input.conversationId,
    ts: output.ts,
    channel: output.channel,
    threadTs: output.threadTs,
    senderType: 'bot',
    senderId: deps.botUserId,
    messageType: 'bot',
    text: message.text,
    receivedAt: deps.clock.now().toISOString(),
  });
  return output;
}

/** The message to post: the input's text and blocks, or its template rendered. */
function messageOf(input: SlackPostInput): PostMessageArgs {
  const rendered = input.template
    ? renderTemplate(input.template)
    : { text: input.text, blocks: input.blocks };
  // SlackPostInput guarantees text or a template; a template always renders text.
  if (rendered.text === undefined) throw new TypeError('SlackPostInput without text or template');
  return {
    channel: input.channel,
    text: rendered.text,
    ...(input.threadTs ? { threadTs: input.threadTs } : {}),
    ...(rendered.blocks ? { blocks: rendered.blocks } : {}),
  };
}
