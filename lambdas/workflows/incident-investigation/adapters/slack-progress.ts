import { RedactingWebClient } from '../../../slack/redacting-web-client.ts';
import { pacedRetryConfig } from '../../../slack/retry-pacing.ts';
import { slackFailure } from '../../../slack/slack-call.ts';

/** Updates a posted message in place (`chat.update`): a phase message as the phase moves on. */
export interface MessageUpdater {
  update(args: {
    channel: string;
    ts: string;
    text: string;
    blocks?: Record<string, unknown>[];
  }): Promise<void>;
}

/**
 * `chat.update` through `@slack/web-api`, pointed at `slackApiUrl` (the sandbox's fake Slack
 * offline). Slack unreachable or answering 5xx is `SlackUnavailableError` (the state machine
 * retries it); an error Slack answers with is `SlackApiError` (not retried).
 */
export function createMessageUpdater(options: { token: string; slackApiUrl?: string }): MessageUpdater {
  const client = new RedactingWebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: pacedRetryConfig({ retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 }),
  });
  return {
    async update({ channel, ts, text, blocks }) {
      try {
        await client.chat.update({
          channel,
          ts,
          text,
          ...(blocks === undefined ? {} : { blocks: blocks as never }),
        });
      } catch (error) {
        throw slackFailure('chat.update', error);
      }
    },
  };
}
