import { SlackApiError } from '../../slack/errors.ts';
import { RedactingWebClient } from '../../slack/redacting-web-client.ts';
import { pacedRetryConfig } from '../../slack/retry-pacing.ts';
import { slackCall } from '../../slack/slack-call.ts';
import type { FeedbackSlack } from '../ports.ts';

/** Slack's answers to `views.open` with a trigger id that is too old or already used. */
const EXPIRED_TRIGGER = new Set(['expired_trigger_id', 'invalid_trigger_id', 'exchanged_trigger_id']);

/**
 * The feedback's Slack calls: the acknowledgement only the presser sees (`chat.postEphemeral`)
 * and the reason form (`views.open`). The client retries what Slack answers with 429 or 5xx.
 */
export function createSlackFeedback(options: { token: string; slackApiUrl?: string }): FeedbackSlack {
  const client = new RedactingWebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    // A trigger id lives three seconds: views.open is not worth retrying for long.
    retryConfig: pacedRetryConfig({ retries: 1, minTimeout: 200, maxTimeout: 500 }),
    timeout: 5_000,
  });
  return {
    async ephemeral(args) {
      await slackCall('chat.postEphemeral', () =>
        client.chat.postEphemeral({
          channel: args.channel,
          user: args.user,
          text: args.text,
          ...(args.threadTs === undefined ? {} : { thread_ts: args.threadTs }),
          ...(args.blocks === undefined ? {} : { blocks: args.blocks as never }),
        }),
      );
    },
    async openView(triggerId, view) {
      try {
        await slackCall('views.open', () =>
          client.views.open({ trigger_id: triggerId, view: view as never }),
        );
        return 'opened';
      } catch (error) {
        if (error instanceof SlackApiError && EXPIRED_TRIGGER.has(error.slackError)) return 'expired';
        throw error;
      }
    },
  };
}
