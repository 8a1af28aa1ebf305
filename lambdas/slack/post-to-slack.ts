import { ConversationNotFoundError } from '../kernel/errors.ts';
import type { Clock, ConversationStore } from '../kernel/ports.ts';
import type { SlackPostInput, SlackPostOutput } from '../kernel/tasks.ts';
import { type RenderedFile, renderTemplate, type TemplateRegistry } from './templates/index.ts';
import type { PostMessageArgs, SlackClient } from './web-client.ts';

export interface PostDeps {
  store: ConversationStore;
  slack: SlackClient;
  clock: Clock;
  botUserId: string;
  /** Idempotency records of earlier posts (kept beside the conversation). */
  posts: PostLedger;
  /** The templates this function renders (its workflow's). */
  templates: TemplateRegistry;
}

export interface PostLedger {
  find(conversationId: string, key: string): Promise<SlackPostOutput | undefined>;
  record(conversationId: string, key: string, output: SlackPostOutput): Promise<void>;
}

/**
 * Posts for a workflow and records the post in the conversation's history (so the history
 * tool shows the bot's side too). With `anchor`, the posted thread becomes the conversation's:
 * replies in it are routed here. A template's file is then uploaded to the message's thread.
 */
export async function postToSlack(input: SlackPostInput, deps: PostDeps): Promise<SlackPostOutput> {
  const { message, file } = messageOf(input, deps.templates);
  const earlier = input.idempotencyKey
    ? await deps.posts.find(input.conversationId, input.idempotencyKey)
    : undefined;
  const output = earlier ?? (await postMessage(input, message, deps));
  // After the message, with its own ledger entry: a task retried after a failed upload
  // finds the message posted and uploads the file only.
  if (file) await shareFile(input, file, output, deps);
  return output;
}

async function postMessage(
  input: SlackPostInput,
  message: PostMessageArgs,
  deps: PostDeps,
): Promise<SlackPostOutput> {
  const conversation = await deps.store.getConversation(input.conversationId);
  if (!conversation) throw new ConversationNotFoundError(input.conversationId);
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

async function shareFile(
  input: SlackPostInput,
  file: RenderedFile,
  message: SlackPostOutput,
  deps: PostDeps,
): Promise<void> {
  const key = input.idempotencyKey ? `${input.idempotencyKey}:file` : undefined;
  if (key && (await deps.posts.find(input.conversationId, key))) return;
  const { fileId } = await deps.slack.uploadFile({
    channel: message.channel,
    threadTs: message.threadTs,
    ...file,
  });
  // The ledger keeps post outputs; for a file, its id stands in the `ts`.
  if (key) await deps.posts.record(input.conversationId, key, { ...message, ts: fileId });
}

/** The message to post: the input's text and blocks, or its template rendered (with its file). */
function messageOf(
  input: SlackPostInput,
  templates: TemplateRegistry,
): { message: PostMessageArgs; file: RenderedFile | undefined } {
  const rendered = input.template
    ? renderTemplate(templates, input.template)
    : { text: input.text, blocks: input.blocks, file: undefined };
  // SlackPostInput guarantees text or a template; a template always renders text.
  if (rendered.text === undefined) throw new TypeError('SlackPostInput without text or template');
  return {
    message: {
      channel: input.channel,
      text: rendered.text,
      ...(input.threadTs ? { threadTs: input.threadTs } : {}),
      ...(rendered.blocks ? { blocks: rendered.blocks } : {}),
    },
    file: rendered.file,
  };
}
