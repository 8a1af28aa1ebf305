import { ErrorCode } from '@slack/web-api';
import { SlackApiError, SlackUnavailableError } from './errors.ts';
import { RedactingWebClient } from './redacting-web-client.ts';
import { slackRetryTimeScale } from './retry-pacing.ts';
import { slackFailure } from './slack-call.ts';

export interface PostMessageArgs {
  channel: string;
  text: string;
  threadTs?: string;
  blocks?: Record<string, unknown>[];
  /**
   * The post's idempotency key, sent as the message's metadata (`agent_post`), so a post Slack
   * accepted but answered with an error can be found again instead of posted twice.
   */
  postKey?: string;
}

/** Where to look for a post carrying `postKey`: its thread, or the channel since `oldest`. */
export interface FindPostArgs {
  channel: string;
  threadTs?: string;
  postKey: string;
  /** A Slack ts: top-level messages before it are not searched. */
  oldest?: string;
}

/** The Slack calls the kernel makes; the adapter below is the only place that knows @slack/web-api. */
export interface SlackPoster {
  postMessage(args: PostMessageArgs): Promise<{ channel: string; ts: string }>;
}

/** Finds a keyed post again (a post Slack accepted but answered with an error). */
export interface SlackPostFinder {
  /** The bot's message carrying `postKey` in its metadata, if Slack has it. */
  findPost(args: FindPostArgs): Promise<{ channel: string; ts: string } | undefined>;
}

/** The metadata event type of the bot's keyed posts. */
export const POST_METADATA_EVENT = 'agent_post';

export interface UploadFileArgs {
  channel: string;
  threadTs?: string;
  filename: string;
  title: string;
  /** The file's text (UTF-8), e.g. Markdown. */
  content: string;
}

/** Shares a text file in a channel or thread (`files.uploadV2`). */
export interface SlackFileUploader {
  uploadFile(args: UploadFileArgs): Promise<{ fileId: string }>;
}

/** Everything SlackPost needs of Slack. */
export type SlackClient = SlackPoster & SlackPostFinder & SlackFileUploader;

/** A message's permalink (`chat.getPermalink`), for messages that point at another one. */
export interface SlackPermalinks {
  permalink(args: { channel: string; ts: string }): Promise<string>;
}

/** One message read back from Slack. */
export interface SlackHistoryMessage {
  ts: string;
  userId: string;
  text: string;
}

/** Reads what was said before a message (channel conversations' context on a start). */
export interface SlackHistoryReader {
  /**
   * Up to `limit` messages before `before`, oldest first: in the thread `threadTs` when given
   * (its parent first), else the channel's top-level messages (`conversations.history`).
   */
  recentMessages(args: {
    channel: string;
    before: string;
    threadTs?: string;
    limit: number;
  }): Promise<SlackHistoryMessage[]>;
}

/** The most replies read from a thread in one call; the last `limit` of them are kept. */
const THREAD_PAGE = 200;

export interface SlackPosterOptions {
  token: string;
  slackApiUrl?: string;
  /** Retries of one call when Slack is unreachable, answers 5xx, or rate-limits briefly. @default 2 */
  maxRetries?: number;
  /** Milliseconds one HTTP request may take before it counts as Slack not answering. @default 5000 */
  timeoutMs?: number;
  /** The longest `Retry-After` waited out in process; past it the call fails as unavailable at once. @default 10 */
  maxRetryAfterSeconds?: number;
  /**
   * Multiplies the waits between retries (back-off and `Retry-After`), not their number.
   * @default - `SLACK_RETRY_TIME_SCALE` (slack/retry-pacing.ts), else 1
   */
  retryTimeScale?: number;
  /** Waits `ms` between two attempts (tests hand in a recorder). @default a timer */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * `@slack/web-api`'s WebClient pointed at `slackApiUrl` (the sandbox's fake Slack offline),
 * with a timeout on every request and our own retries: the client's retries would repost a
 * message Slack accepted but answered with an error, so a post is looked for again (by its
 * `postKey`) before each retry, and a 429 asking for a long wait ends the call instead of
 * holding the Lambda (the state machine retries the task later).
 */
export function createSlackPoster(
  options: SlackPosterOptions,
): SlackClient & SlackHistoryReader & SlackPermalinks {
  const client = new RedactingWebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: { retries: 0 },
    timeout: options.timeoutMs ?? 5_000,
    rejectRateLimitedCalls: true,
  });
  const policy = {
    retries: options.maxRetries ?? 2,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 10,
    timeScale: options.retryTimeScale ?? slackRetryTimeScale(),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  };
  const call = <T>(method: string, run: () => Promise<T>, beforeRetry?: () => Promise<T | undefined>) =>
    callWithRetries(method, run, policy, beforeRetry);
  const findPost = async (args: FindPostArgs) => {
    const messages = args.threadTs
      ? (
          await call('conversations.replies', () =>
            client.conversations.replies({
              channel: args.channel,
              ts: args.threadTs as string,
              include_all_metadata: true,
              limit: THREAD_PAGE,
            }),
          )
        ).messages
      : (
          await call('conversations.history', () =>
            client.conversations.history({
              channel: args.channel,
              ...(args.oldest ? { oldest: args.oldest } : {}),
              include_all_metadata: true,
              limit: 100,
            }),
          )
        ).messages;
    const found = (messages ?? []).find(
      (m) =>
        m.metadata?.event_type === POST_METADATA_EVENT &&
        (m.metadata.event_payload as { key?: unknown } | undefined)?.key === args.postKey,
    );
    return found?.ts ? { channel: args.channel, ts: found.ts } : undefined;
  };
  return {
    findPost,
    async permalink(args) {
      const result = await call('chat.getPermalink', () =>
        client.chat.getPermalink({ channel: args.channel, message_ts: args.ts }),
      );
      if (!result.permalink) throw new SlackApiError('chat.getPermalink', 'missing permalink in response');
      return result.permalink;
    },
    async postMessage(args) {
      const result = await call(
        'chat.postMessage',
        async () => {
          const posted = await client.chat.postMessage({
            channel: args.channel,
            text: args.text,
            ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
            ...(args.blocks ? { blocks: args.blocks as never } : {}),
            ...(args.postKey
              ? { metadata: { event_type: POST_METADATA_EVENT, event_payload: { key: args.postKey } } }
              : {}),
          });
          return { channel: posted.channel, ts: posted.ts };
        },
        // Slack may have taken the failed attempt: find it rather than post it twice.
        args.postKey
          ? () =>
              findPost({
                channel: args.channel,
                postKey: args.postKey as string,
                ...(args.threadTs ? { threadTs: args.threadTs } : {}),
              })
          : undefined,
      );
      if (!result.ts || !result.channel)
        throw new SlackApiError('chat.postMessage', 'missing ts in response');
      return { channel: result.channel, ts: result.ts };
    },
    async uploadFile(args) {
      // uploadV2 gets an upload URL, posts the bytes there, then shares the file.
      const file = { filename: args.filename, title: args.title, content: args.content };
      const result = (await call('files.uploadV2', () =>
        client.files.uploadV2(
          args.threadTs
            ? { ...file, channel_id: args.channel, thread_ts: args.threadTs }
            : { ...file, channel_id: args.channel },
        ),
      )) as { files?: { files?: { id?: string }[] }[] };
      const fileId = result.files?.flatMap((completion) => completion.files ?? [])[0]?.id;
      if (!fileId) throw new SlackApiError('files.uploadV2', 'missing file id in response');
      return { fileId };
    },
    async recentMessages(args) {
      if (args.threadTs !== undefined) {
        const { threadTs } = args;
        // Replies come oldest first and a page starts at the oldest: read one large page and
        // keep the parent and the last `limit - 1` replies before the message.
        const result = await call('conversations.replies', () =>
          client.conversations.replies({
            channel: args.channel,
            ts: threadTs,
            latest: args.before,
            inclusive: false,
            limit: THREAD_PAGE,
          }),
        );
        const messages = readMessages(result.messages).filter((m) => m.ts !== args.before);
        const [parent, ...replies] = messages;
        if (parent === undefined || args.limit === 0) return [];
        return args.limit === 1 ? [parent] : [parent, ...replies.slice(-(args.limit - 1))];
      }
      // History comes newest first; `latest` is exclusive by default.
      const result = await call('conversations.history', () =>
        client.conversations.history({ channel: args.channel, latest: args.before, limit: args.limit }),
      );
      return readMessages(result.messages).reverse();
    },
  };
}

/** Slack's messages with a user and text (joins and other system messages have no user). */
function readMessages(
  messages: readonly { ts?: string; user?: string; text?: string }[] | undefined,
): SlackHistoryMessage[] {
  return (messages ?? []).flatMap((m) =>
    m.ts !== undefined && m.user !== undefined ? [{ ts: m.ts, userId: m.user, text: m.text ?? '' }] : [],
  );
}

/**
 * Runs one Web API call with retries, translating its failure: Slack's refusal (terminal) or
 * Slack unavailable (unreachable, no answer in time, 5xx, rate-limited past the retries or
 * for longer than the cap). `beforeRetry` may find what the failed attempt did after all.
 * `timeScale` multiplies each wait (default 1); the cap is on the seconds Slack asked for.
 */
export async function callWithRetries<T>(
  method: string,
  run: () => Promise<T>,
  policy: {
    retries: number;
    maxRetryAfterSeconds: number;
    timeScale?: number;
    sleep?: (ms: number) => Promise<void>;
  },
  beforeRetry?: () => Promise<T | undefined>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === ErrorCode.PlatformError) throw slackFailure(method, error);
      const retryAfter =
        code === ErrorCode.RateLimitedError ? (error as { retryAfter?: number }).retryAfter : undefined;
      const waitMs =
        retryAfter === undefined
          ? 500 * 2 ** attempt
          : retryAfter <= policy.maxRetryAfterSeconds
            ? retryAfter * 1000
            : undefined;
      if (attempt >= policy.retries || waitMs === undefined)
        throw new SlackUnavailableError(method, { cause: error });
      await (policy.sleep ?? sleep)(waitMs * (policy.timeScale ?? 1));
      const found = await beforeRetry?.().catch(() => undefined);
      if (found !== undefined) return found;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
