import type { ChatAppendStreamArguments } from '@slack/web-api';
import type { ProgressSlack } from '../progress/ports.ts';
import type { ProgressChunk } from '../progress/timeline.ts';
import { SlackApiError } from './errors.ts';
import { RedactingWebClient } from './redacting-web-client.ts';
import { slackRetryTimeScale } from './retry-pacing.ts';
import { callWithRetries, createSlackPoster } from './web-client.ts';

export interface ProgressClientOptions {
  token: string;
  slackApiUrl?: string;
  /** Milliseconds one request may take: progress must not hold a turn. @default 3000 */
  timeoutMs?: number;
}

/**
 * Live progress's Slack calls over `@slack/web-api`: streams (`chat.startStream`,
 * `appendStream`, `stopStream`), the in-place message (`chat.postMessage` with a post key,
 * `chat.update`), and `assistant.threads.setStatus`. One quick retry at most, and a short
 * `Retry-After` only: a turn never waits long on its progress. Slack's refusals surface as
 * `SlackApiError` (with `slackError`), which the progress code reads.
 */
export function createProgressClient(options: ProgressClientOptions): ProgressSlack {
  const timeout = options.timeoutMs ?? 3_000;
  const client = new RedactingWebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: { retries: 0 },
    timeout,
    rejectRateLimitedCalls: true,
  });
  const poster = createSlackPoster({
    token: options.token,
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    maxRetries: 1,
    timeoutMs: timeout,
    maxRetryAfterSeconds: 2,
  });
  const policy = { retries: 1, maxRetryAfterSeconds: 2, timeScale: slackRetryTimeScale() };
  const call = <T>(method: string, run: () => Promise<T>) => callWithRetries(method, run, policy);
  let team: Promise<string | undefined> | undefined;
  return {
    async startStream(args) {
      const result = await call('chat.startStream', () =>
        client.chat.startStream({
          channel: args.channel,
          thread_ts: args.threadTs,
          chunks: sdkChunks(args.chunks),
          task_display_mode: args.taskDisplayMode,
          ...(args.recipientUserId ? { recipient_user_id: args.recipientUserId } : {}),
          ...(args.recipientTeamId ? { recipient_team_id: args.recipientTeamId } : {}),
        }),
      );
      if (!result.ts) throw new SlackApiError('chat.startStream', 'missing ts in response');
      return { ts: result.ts };
    },
    async appendStream(args) {
      await call('chat.appendStream', () =>
        client.chat.appendStream({ channel: args.channel, ts: args.ts, chunks: sdkChunks(args.chunks) }),
      );
    },
    async stopStream(args) {
      await call('chat.stopStream', () =>
        client.chat.stopStream({
          channel: args.channel,
          ts: args.ts,
          ...(args.chunks && args.chunks.length > 0 ? { chunks: sdkChunks(args.chunks) } : {}),
        }),
      );
    },
    async postMessage(args) {
      const posted = await poster.postMessage(args);
      return { ts: posted.ts };
    },
    async findPost(args) {
      const found = await poster.findPost(args);
      return found ? { ts: found.ts } : undefined;
    },
    async updateMessage(args) {
      await call('chat.update', () =>
        client.chat.update({
          channel: args.channel,
          ts: args.ts,
          text: args.text,
          blocks: args.blocks as never,
        }),
      );
    },
    async deleteMessage(args) {
      await call('chat.delete', () => client.chat.delete({ channel: args.channel, ts: args.ts }));
    },
    async setStatus(args) {
      await call('assistant.threads.setStatus', () =>
        client.assistant.threads.setStatus({
          channel_id: args.channel,
          thread_ts: args.threadTs,
          status: args.status,
          ...(args.loadingMessages ? { loading_messages: args.loadingMessages } : {}),
        }),
      );
    },
    teamId() {
      // Once per instance; a failure is not kept, so the next turn asks again.
      team ??= call('auth.test', () => client.auth.test())
        .then((result) => result.team_id)
        .catch((error: unknown) => {
          team = undefined;
          throw error;
        });
      return team;
    },
  };
}

type SdkChunks = NonNullable<ChatAppendStreamArguments['chunks']>;

/** Our chunks are Slack's shapes; the SDK's union wants its own element types for blocks. */
function sdkChunks(chunks: readonly ProgressChunk[]): SdkChunks {
  return chunks as SdkChunks;
}
