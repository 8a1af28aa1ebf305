import { createHash, randomUUID } from 'node:crypto';
import { type ApprovalStore, approvalBlock } from '../kernel/approvals.ts';
import { ConversationNotFoundError } from '../kernel/errors.ts';
import type { Conversation, Ledger } from '../kernel/model.ts';
import type { Clock, ConversationStore } from '../kernel/ports.ts';
import type { SlackPostOutput } from '../kernel/slack-post-output.ts';
import type { SlackPostInput } from '../kernel/tasks.ts';
import { allEnded } from '../shared/all-ended.ts';
import { formatUsd } from '../shared/money.ts';
import { SlackApiError } from './errors.ts';
import { type RenderedFile, renderTemplate, type TemplateRegistry } from './templates/index.ts';
import { MAX_MESSAGE_BLOCKS, SECTION_TEXT_LIMIT, textSections, truncate } from './templates/text.ts';
import type { PostMessageArgs, SlackClient, SlackPermalinks } from './web-client.ts';

export interface PostDeps {
  store: ConversationStore;
  slack: SlackClient;
  clock: Clock;
  botUserId: string;
  /** Idempotency records of earlier posts (kept beside the conversation). */
  posts: PostLedger;
  /** The templates this function renders (its workflow's). */
  templates: TemplateRegistry;
  /**
   * Where a post's approval is opened (`SlackPostInput.approval`).
   * @default - none: a post with an approval fails with a clear error
   */
  approvals?: ApprovalStore;
  /**
   * Permalinks of other messages (`SlackPostInput.permalinkOf`).
   * @default - none: the template gets no permalink
   */
  permalinks?: SlackPermalinks;
}

export interface PostLedger {
  find(conversationId: string, key: string): Promise<SlackPostOutput | undefined>;
  record(conversationId: string, key: string, output: SlackPostOutput): Promise<void>;
  /**
   * Notes an attempt to post `key` before it is made; `earlier` when an attempt was noted
   * before (a retried task: Slack may have taken that post), with when the first one began.
   * @default - not noted: a retried task cannot tell a lost answer from no post
   */
  attempt?(conversationId: string, key: string): Promise<{ earlier: boolean; firstAttemptAt: string }>;
}

/** How far before the first attempt a top-level post is looked for (clocks differ a little). */
const FIND_MARGIN_SECONDS = 60;

/**
 * Posts for a workflow and records the post in the conversation's history (so the history
 * tool shows the bot's side too). With `anchor`, the posted thread becomes the conversation's:
 * replies in it are routed here. A template's file is then uploaded to the message's thread.
 *
 * Exactly once with its side effects: the thread link and the stored bot message
 * are written, idempotently, on every attempt, and the idempotency record last, so a retry
 * after any failure completes what the first attempt left undone. A post Slack accepted but
 * answered with an error is found again by its key (message metadata) instead of posted twice.
 */
export async function postToSlack(
  input: SlackPostInput,
  deps: PostDeps,
  /**
   * The conversation and this post's idempotency record, when the caller read them already
   * (SlackPost reads them with the other items it needs, in one request).
   * @default - read here
   */
  read?: { conversation: Conversation | undefined; recorded: SlackPostOutput | undefined },
): Promise<SlackPostOutput> {
  const permalink = input.permalinkOf ? await permalinkOf(input.permalinkOf, deps) : undefined;
  const { message, file } = messageOf(input, deps.templates, permalink);
  if (input.timeline !== undefined) addTimelineSummary(message, input.timeline);
  if (input.delayedSince !== undefined) addDelayLine(message, input.delayedSince, deps.clock.now());
  const key = input.idempotencyKey;
  const nonce = input.approval ? approvalNonce(input) : undefined;
  if (input.approval && nonce !== undefined) {
    if (deps.approvals === undefined)
      throw new TypeError('SlackPost with an approval, but no approval store');
    // Slack shows a message's blocks instead of its text: a text-only message gets its words
    // as a section above the buttons, so people read what the buttons would do.
    const words = message.blocks ?? [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(message.text, SECTION_TEXT_LIMIT) } },
    ];
    message.blocks = [...words, approvalBlock(input.approval, nonce)];
  }
  // Three calls on separate items, side by side: the conversation, an earlier attempt's record,
  // and the note of this attempt, made before anything is posted. A note made for a post that
  // turns out recorded, or for a conversation that is not there, changes nothing: it is only
  // read when a post is about to be made, and it expires.
  const [conversation, recorded, attempt] = await allEnded([
    read ? read.conversation : deps.store.getConversation(input.conversationId),
    read ? read.recorded : key ? deps.posts.find(input.conversationId, key) : undefined,
    key && deps.posts.attempt ? deps.posts.attempt(input.conversationId, key) : undefined,
  ]);
  if (!conversation) throw new ConversationNotFoundError(input.conversationId);
  if (input.withCost) appendCost(message, conversation.ledger);
  // Opened before the post, so a press right after it finds its approval open (not stale);
  // its message is noted once Slack answers. A retry opens the same one (same nonce) again,
  // which keeps what it has since (its message, a decision, a parked wait).
  if (input.approval && nonce !== undefined && deps.approvals) {
    await deps.approvals.openApproval(input.conversationId, {
      nonce,
      kind: input.approval.kind,
      choices: input.approval.buttons.map((button) => button.decision),
      text: message.text,
      openedAt: deps.clock.now().toISOString(),
      ...(input.approval.deliverAsMessage === true ? { deliverAsMessage: true } : {}),
    });
  }
  const output = recorded ?? (await postOnce(input, message, attempt, deps));
  if (input.anchor) {
    await deps.store.linkThread({
      conversationId: input.conversationId,
      ownerId: conversation.ownerId,
      anchor: { ...input.anchor, channel: output.channel, threadTs: output.threadTs },
    });
  }
  // A conditional put: `duplicate` on a retry, never a second copy (I1).
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
  // Before the idempotency record, so a retry after a failure here notes it again.
  if (input.approval && nonce !== undefined && deps.approvals) {
    await deps.approvals.placeApproval(
      input.conversationId,
      { kind: input.approval.kind, nonce },
      { channel: output.channel, messageTs: output.ts, threadTs: output.threadTs },
    );
  }
  if (key && !recorded) await deps.posts.record(input.conversationId, key, output);
  // After the message, with its own ledger entry: a task retried after a failed upload
  // finds the message posted and uploads the file only.
  if (file) await shareFile(input, file, output, deps);
  // The ledger keeps the post only; the nonce is derived again, the same, on every attempt.
  return nonce === undefined ? output : { ...output, approvalNonce: nonce };
}

/**
 * Posts the message, unless an earlier attempt of this key already did (then finds it): `attempt`
 * is this attempt's note (`PostLedger.attempt`), undefined when attempts are not noted.
 */
async function postOnce(
  input: SlackPostInput,
  message: PostMessageArgs,
  attempt: { earlier: boolean; firstAttemptAt: string } | undefined,
  deps: PostDeps,
): Promise<SlackPostOutput> {
  const key = input.idempotencyKey;
  let found: { channel: string; ts: string } | undefined;
  if (key && attempt?.earlier) {
    const oldest = Math.floor(Date.parse(attempt.firstAttemptAt) / 1000) - FIND_MARGIN_SECONDS;
    found = await deps.slack.findPost({
      channel: input.channel,
      postKey: key,
      ...(input.threadTs ? { threadTs: input.threadTs } : { oldest: `${oldest}.000000` }),
    });
  }
  const posted = found ?? (await deps.slack.postMessage({ ...message, ...(key ? { postKey: key } : {}) }));
  return { channel: posted.channel, ts: posted.ts, threadTs: input.threadTs ?? posted.ts };
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

/**
 * An approval's nonce: derived from the post's idempotency key, so a retried post renders the
 * same buttons and opens the same approval; a post without a key gets a random one.
 */
function approvalNonce(input: SlackPostInput): string {
  const seed = input.idempotencyKey ?? randomUUID();
  return createHash('sha256').update(`${input.conversationId}\n${seed}`).digest('hex').slice(0, 32);
}

/**
 * The permalink of a message another one points at, or undefined when Slack refuses to give
 * one (the message points at the channel instead). Slack being unavailable is thrown: the
 * task is retried.
 */
async function permalinkOf(
  target: { channel: string; ts: string },
  deps: PostDeps,
): Promise<string | undefined> {
  if (deps.permalinks === undefined) return undefined;
  try {
    return await deps.permalinks.permalink(target);
  } catch (error) {
    if (error instanceof SlackApiError) return undefined;
    throw error;
  }
}

/**
 * The line that opens a post kept through a Slack outage: what happened and since when, in
 * Slack's date formatting (each reader's own time zone), with the plain time as its fallback.
 */
export function delayLine(since: string, now: Date): string {
  const at = Date.parse(since);
  const minutes = Math.max(1, Math.round((now.getTime() - at) / 60_000));
  const seconds = Math.floor(at / 1000);
  return `:hourglass: Delayed: Slack was unavailable when this was ready (since <!date^${seconds}^{date_short_pretty} {time}|${since}>, about ${minutes} min ago), so it is posted now that Slack is back.`;
}

function addDelayLine(message: PostMessageArgs, since: string, now: Date): void {
  const line = delayLine(since, now);
  message.text = `${line}\n${message.text}`;
  if (message.blocks) {
    message.blocks = [{ type: 'context', elements: [{ type: 'mrkdwn', text: line }] }, ...message.blocks];
  }
}

/**
 * Opens the message with the summary of the timeline it replaces, as a context block (small,
 * grey). The text stays the message's own, so the notification reads the answer. A text-only
 * message gets its text as sections below it, cut at line ends, since Slack then shows the
 * blocks instead of the text.
 */
function addTimelineSummary(message: PostMessageArgs, summary: string): void {
  const context = { type: 'context', elements: [{ type: 'mrkdwn', text: summary }] };
  const body = message.blocks ?? textSections(message.text);
  if (body.length >= MAX_MESSAGE_BLOCKS) return;
  message.blocks = [context, ...body];
}

/** The line a conversation's final message ends with: its estimated model cost and tokens. */
export function costLine(ledger: Partial<Ledger> | undefined): string {
  const tokens = (ledger?.inputTokens ?? 0) + (ledger?.outputTokens ?? 0);
  const cached = ledger?.cacheReadTokens ?? 0;
  const cache = cached > 0 ? ` and ${cached.toLocaleString('en-US')} read from the cache` : '';
  return `:moneybag: Estimated model cost of this conversation: ${formatUsd(ledger?.costMicroUsd ?? 0)} (${tokens.toLocaleString('en-US')} tokens${cache})`;
}

/** Appends the cost line to the text, and as a context block when the message has blocks. */
function appendCost(message: PostMessageArgs, ledger: Partial<Ledger> | undefined): void {
  const line = costLine(ledger);
  message.text = `${message.text}\n${line}`;
  if (message.blocks) {
    message.blocks = [...message.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: line }] }];
  }
}

/**
 * The input with its template rendered into text and blocks (without a permalink), for a post
 * kept through an outage that a function without the workflow's templates posts later.
 */
export function renderedInput(
  input: SlackPostInput,
  templates: TemplateRegistry,
  permalink?: string,
): SlackPostInput {
  if (input.template === undefined) return input;
  const { message } = messageOf(input, templates, permalink);
  const { template: _template, permalinkOf: _permalinkOf, ...rest } = input;
  return { ...rest, text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) };
}

/** The message to post: the input's text and blocks, or its template rendered (with its file). */
function messageOf(
  input: SlackPostInput,
  templates: TemplateRegistry,
  permalink: string | undefined,
): { message: PostMessageArgs; file: RenderedFile | undefined } {
  const rendered = input.template
    ? renderTemplate(templates, {
        name: input.template.name,
        data: permalink === undefined ? input.template.data : { ...input.template.data, permalink },
      })
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
