import { SlackApiError } from '../../slack/errors.ts';
import { RedactingWebClient } from '../../slack/redacting-web-client.ts';
import { pacedRetryConfig } from '../../slack/retry-pacing.ts';
import { slackCall } from '../../slack/slack-call.ts';
import type { HomeSlack } from '../ports.ts';

/** The App Home's and the assistant thread's Slack calls. */
export function createSlackHome(options: { token: string; slackApiUrl?: string }): HomeSlack {
  const client = new RedactingWebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: pacedRetryConfig({ retries: 2, factor: 2, minTimeout: 300, maxTimeout: 2_000 }),
    timeout: 5_000,
  });
  return {
    async publish(user, view) {
      await slackCall('views.publish', () => client.views.publish({ user_id: user, view: view as never }));
    },
    async permalink(channel, ts) {
      try {
        const answer = await slackCall('chat.getPermalink', () =>
          client.chat.getPermalink({ channel, message_ts: ts }),
        );
        return answer.permalink;
      } catch (error) {
        // A message deleted or out of reach: the Home lists the conversation without its link.
        if (error instanceof SlackApiError) return undefined;
        throw error;
      }
    },
    async suggestPrompts(args) {
      await slackCall('assistant.threads.setSuggestedPrompts', () =>
        client.assistant.threads.setSuggestedPrompts({
          channel_id: args.channel,
          thread_ts: args.threadTs,
          title: args.title,
          prompts: args.prompts.map((p) => ({ title: p.title, message: p.message })) as never,
        }),
      );
    },
  };
}
