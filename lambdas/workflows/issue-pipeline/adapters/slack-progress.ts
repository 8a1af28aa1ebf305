import { SlackApiError } from '../../../slack/errors.ts';
import { RedactingWebClient } from '../../../slack/redacting-web-client.ts';
import { pacedRetryConfig } from '../../../slack/retry-pacing.ts';
import { slackCall } from '../../../slack/slack-call.ts';

/**
 * The pipeline's Slack message through `@slack/web-api`: posted once, then edited in place
 * (`chat.update`), and replies in its thread. Errors are translated as the kernel's Slack
 * adapters do: Slack's own refusal is `SlackApiError`, anything else `SlackUnavailableError`
 * (which the state machine retries).
 */
export function createSlackProgress(options: { token: string; slackApiUrl?: string }) {
  const client = new RedactingWebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: pacedRetryConfig({ retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 }),
  });
  return {
    async post(channel: string, text: string) {
      const posted = await slackCall('chat.postMessage', () => client.chat.postMessage({ channel, text }));
      if (!posted.ts || !posted.channel)
        throw new SlackApiError('chat.postMessage', 'missing ts in response');
      return { channel: posted.channel, ts: posted.ts };
    },
    async update(channel: string, ts: string, text: string, blocks?: Record<string, unknown>[]) {
      await slackCall('chat.update', () =>
        client.chat.update({
          channel,
          ts,
          text,
          ...(blocks === undefined ? {} : { blocks: blocks as never }),
        }),
      );
    },
    async reply(channel: string, threadTs: string, text: string) {
      await slackCall('chat.postMessage', () =>
        client.chat.postMessage({ channel, thread_ts: threadTs, text }),
      );
    },
  };
}
