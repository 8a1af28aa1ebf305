import { createHash } from 'node:crypto';
import type { SlackPostOutput } from '../kernel/slack-post-output.ts';
import type { SlackPostInput } from '../kernel/tasks.ts';
import { SlackUnavailableError } from './errors.ts';
import { type PostDeps, postToSlack, renderedInput } from './post-to-slack.ts';

/**
 * Posts that outlive a Slack outage. A post people must see is retried by its state machine
 * for about an hour and a half (statemachines/slack-post.ts `essentialPostRetry`); when Slack
 * is still unavailable at the last of those attempts, the post is kept in the conversation's
 * outbox instead of failing the conversation, and the workflow goes on with a stand-in answer.
 * The outbox is posted, in order and once each, with a line saying it was delayed and since
 * when, at the conversation's next post that finds Slack back, or by the scheduled sweep
 * (lambdas/handlers/reconciler.ts). While a conversation has posts in its outbox, its later
 * posts join the queue, so people read them in the order the workflow wrote them.
 */

/** The attempt of one post, counting Slack's failures, at which it is kept instead of failing. */
const DEFER_AT_ATTEMPT = 9;

/** The stand-in `ts` of a kept post, until it is posted: later posts may name it as their thread. */
const PLACEHOLDER_PREFIX = 'deferred-';

export function placeholderTs(conversationId: string, idempotencyKey: string): string {
  const digest = createHash('sha256').update(`${conversationId}\n${idempotencyKey}`).digest('hex');
  return `${PLACEHOLDER_PREFIX}${digest.slice(0, 24)}`;
}

const isPlaceholder = (ts: string | undefined): ts is string => ts?.startsWith(PLACEHOLDER_PREFIX) === true;

/** A post kept for later: what the state machine asked for, and since when it waits. */
export interface OutboxEntry {
  conversationId: string;
  /** Its place in the conversation's queue (ISO time of keeping, then a counter: sortable). */
  seq: string;
  input: SlackPostInput;
  /** The stand-in answer the workflow got. */
  placeholder: SlackPostOutput;
  /** When Slack was first found unavailable for it. */
  since: string;
  /**
   * The input with its template rendered, for a sweep by a function without the workflow's
   * templates (the reconciler); absent for a post without a template. A permalink the template
   * shows is `PERMALINK_STAND_IN` there, replaced when it is posted.
   */
  rendered?: SlackPostInput;
  /** The message whose permalink replaces the stand-in in `rendered`. */
  renderedPermalinkOf?: { channel: string; ts: string };
}

/** The permalink in a kept post rendered before its target was posted, until it is posted. */
export const PERMALINK_STAND_IN = 'https://slack.invalid/permalink-of-a-kept-post';

/** Where kept posts wait (beside the conversation; adapters/dynamo-outbox.ts). */
export interface OutboxStore {
  /** Counts one more failed attempt of the post `key`; returns the count so far. */
  countFailure(conversationId: string, key: string): Promise<{ failures: number; firstAt: string }>;
  keep(entry: OutboxEntry): Promise<void>;
  /** The conversation's kept posts not yet posted, in order. */
  waiting(conversationId: string): Promise<OutboxEntry[]>;
  /** Marks a kept post posted, with Slack's answer (its placeholder then resolves to it). */
  posted(entry: OutboxEntry, output: SlackPostOutput): Promise<void>;
  /** The posted answer for a placeholder, once its post is out. */
  resolve(conversationId: string, placeholder: string): Promise<SlackPostOutput | undefined>;
  /** Conversations with kept posts (for the sweep). */
  conversationsWaiting(): Promise<string[]>;
}

export interface OutboxDeps extends PostDeps {
  outbox: OutboxStore;
}

export type PostOutcome =
  | { outcome: 'posted'; output: SlackPostOutput }
  | { outcome: 'kept'; output: SlackPostOutput; reason: string };

/** The post as SlackPost makes it: now, or kept in the outbox through an outage. */
export async function postOrKeep(
  input: SlackPostInput,
  deps: OutboxDeps,
  /**
   * The conversation's kept posts, when the caller read them already (`OutboxStore.waiting`,
   * read beside its own reads).
   * @default - read here
   */
  waiting?: OutboxEntry[],
  /** The conversation and the post's idempotency record, when the caller read them (postToSlack). */
  read?: Parameters<typeof postToSlack>[2],
): Promise<PostOutcome> {
  const resolved = await resolvePlaceholders(input, deps.outbox);
  if (!resolved) return keep(input, deps, 'an earlier post it depends on is still kept');
  const queued = waiting ?? (await deps.outbox.waiting(input.conversationId));
  // A retried task of a post kept already: the same stand-in, not a second copy.
  const same = queued.find(
    (e) => input.idempotencyKey !== undefined && e.input.idempotencyKey === input.idempotencyKey,
  );
  if (same) return { outcome: 'kept', output: same.placeholder, reason: 'already kept' };
  if (queued.length > 0) {
    const flushed = await flushConversation(input.conversationId, deps);
    if (flushed.left > 0) return keep(resolved, deps, 'earlier posts are still kept');
  }
  try {
    return { outcome: 'posted', output: await postToSlack(resolved, deps, read) };
  } catch (error) {
    if (!(error instanceof SlackUnavailableError) || input.idempotencyKey === undefined) throw error;
    const { failures } = await deps.outbox.countFailure(input.conversationId, input.idempotencyKey);
    // Before the last attempt the state machine's Retry waits and tries again.
    if (failures < DEFER_AT_ATTEMPT) throw error;
    return keep(resolved, deps, error.message);
  }
}

async function keep(input: SlackPostInput, deps: OutboxDeps, reason: string): Promise<PostOutcome> {
  if (input.idempotencyKey === undefined) {
    throw new TypeError('a post without an idempotency key cannot be kept for later');
  }
  const key = input.idempotencyKey;
  const { firstAt } = await deps.outbox.countFailure(input.conversationId, key);
  const ts = placeholderTs(input.conversationId, key);
  const placeholder: SlackPostOutput = { channel: input.channel, ts, threadTs: input.threadTs ?? ts };
  const now = deps.clock.now().toISOString();
  await deps.outbox.keep({
    conversationId: input.conversationId,
    seq: `${now}#${key}`,
    input,
    placeholder,
    since: firstAt,
    ...(input.template === undefined
      ? {}
      : {
          rendered: renderedInput(input, deps.templates, input.permalinkOf ? PERMALINK_STAND_IN : undefined),
          ...(input.permalinkOf ? { renderedPermalinkOf: input.permalinkOf } : {}),
        }),
  });
  return { outcome: 'kept', output: placeholder, reason };
}

/**
 * The input with the stand-ins of kept posts replaced by what Slack answered for them;
 * undefined while one it names is still kept.
 */
async function resolvePlaceholders(
  input: SlackPostInput,
  outbox: OutboxStore,
): Promise<SlackPostInput | undefined> {
  let out = input;
  if (isPlaceholder(input.threadTs)) {
    const posted = await outbox.resolve(input.conversationId, input.threadTs);
    if (!posted) return undefined;
    out = { ...out, threadTs: posted.threadTs };
  }
  if (input.permalinkOf && isPlaceholder(input.permalinkOf.ts)) {
    const posted = await outbox.resolve(input.conversationId, input.permalinkOf.ts);
    if (!posted) return undefined;
    out = { ...out, permalinkOf: { channel: posted.channel, ts: posted.ts } };
  }
  return out;
}

/**
 * Posts the conversation's kept posts in order, each with its delay line, until Slack fails
 * again (the rest stay kept). Safe to run twice at once: each post goes through SlackPost's
 * idempotency ledger, so it is posted once.
 */
async function flushConversation(
  conversationId: string,
  deps: OutboxDeps,
): Promise<{ posted: number; left: number }> {
  const entries = await deps.outbox.waiting(conversationId);
  let posted = 0;
  for (const entry of entries) {
    // The workflow's own SlackPost renders its template (with a permalink); the sweep, which has
    // no workflow's templates, posts it as rendered when it was kept.
    const own = entry.input.template === undefined || entry.input.template.name in deps.templates;
    const input = own
      ? await resolvePlaceholders(entry.input, deps.outbox)
      : await withPermalink(entry, deps);
    if (!input) break;
    try {
      const output = await postToSlack({ ...input, delayedSince: entry.since }, deps);
      await deps.outbox.posted(entry, output);
      posted++;
    } catch (error) {
      if (error instanceof SlackUnavailableError) break;
      throw error;
    }
  }
  return { posted, left: entries.length - posted };
}

/** The rendered input of a kept post, its permalink stand-in replaced by the target's permalink. */
async function withPermalink(entry: OutboxEntry, deps: OutboxDeps): Promise<SlackPostInput | undefined> {
  const rendered = entry.rendered ?? entry.input;
  const resolved = await resolvePlaceholders(rendered, deps.outbox);
  if (!resolved || entry.renderedPermalinkOf === undefined) return resolved;
  let target = entry.renderedPermalinkOf;
  if (isPlaceholder(target.ts)) {
    const posted = await deps.outbox.resolve(entry.conversationId, target.ts);
    if (!posted) return undefined;
    target = { channel: posted.channel, ts: posted.ts };
  }
  const link = (await deps.permalinks?.permalink(target).catch(() => undefined)) ?? '';
  return JSON.parse(JSON.stringify(resolved).replaceAll(PERMALINK_STAND_IN, link)) as SlackPostInput;
}

/** The sweep: every conversation's outbox, for the scheduled reconciler. */
export async function flushOutboxes(
  deps: OutboxDeps,
): Promise<{ conversationId: string; posted: number; left: number }[]> {
  const out: { conversationId: string; posted: number; left: number }[] = [];
  for (const conversationId of await deps.outbox.conversationsWaiting()) {
    out.push({ conversationId, ...(await flushConversation(conversationId, deps)) });
  }
  return out;
}
