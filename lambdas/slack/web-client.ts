import { ErrorCode, WebClient } from '@slack/web-api';
import { SlackApiError, SlackUnavailableError } from './errors.ts';

export interface PostMessageArgs {
  channel: string;
  text: string;
  threadTs?: string;
  blocks?: Record<string, unknown>[];
}

/** The Slack calls the kernel makes; the adapter below is the only place that knows @slack/web-api. */
export interface SlackPoster {
  postMessage(args: PostMessageArgs): Promise<{ channel: string; ts: string }>;
}

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
export type SlackClient = SlackPoster & SlackFileUploader;

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

/**
 * `@slack/web-api`'s WebClient with its own rate-limit handling (it waits out 429s and
 * retries), pointed at `slackApiUrl` (the sandbox's fake Slack offline).
 */
export function createSlackPoster(options: {
  token: string;
  slackApiUrl?: string;
  maxRetries?: number;
}): SlackClient & SlackHistoryReader {
  const client = new WebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: { retries: options.maxRetries ?? 5, factor: 2, minTimeout: 500, maxTimeout: 10_000 },
  });
  return {
    async postMessage(args) {
      const result = await call('chat.postMessage', () =>
        client.chat.postMessage({
          channel: args.channel,
          text: args.text,
          ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
          ...(args.blocks ? { blocks: args.blocks as never } : {}),
        }),
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

/** Runs one Web API call, translating its failure: Slack's refusal or Slack unavailable. */
async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === ErrorCode.PlatformError) {
      const slackError = (error as { data?: { error?: string } }).data?.error ?? 'unknown_error';
      throw new SlackApiError(method, slackError, { cause: error });
    }
    throw new SlackUnavailableError(method, { cause: error });
  }
}
