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

/**
 * `@slack/web-api`'s WebClient with its own rate-limit handling (it waits out 429s and
 * retries), pointed at `slackApiUrl` (the sandbox's fake Slack offline).
 */
export function createSlackPoster(options: {
  token: string;
  slackApiUrl?: string;
  maxRetries?: number;
}): SlackPoster {
  const client = new WebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: { retries: options.maxRetries ?? 5, factor: 2, minTimeout: 500, maxTimeout: 10_000 },
  });
  return {
    async postMessage(args) {
      try {
        const result = await client.chat.postMessage({
          channel: args.channel,
          text: args.text,
          ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
          ...(args.blocks ? { blocks: args.blocks as never } : {}),
        });
        if (!result.ts || !result.channel)
          throw new SlackApiError('chat.postMessage', 'missing ts in response');
        return { channel: result.channel, ts: result.ts };
      } catch (error) {
        if (error instanceof SlackApiError) throw error;
        const code = (error as { code?: string }).code;
        if (code === ErrorCode.PlatformError) {
          const slackError = (error as { data?: { error?: string } }).data?.error ?? 'unknown_error';
          throw new SlackApiError('chat.postMessage', slackError, { cause: error });
        }
        throw new SlackUnavailableError('chat.postMessage', { cause: error });
      }
    },
  };
}
