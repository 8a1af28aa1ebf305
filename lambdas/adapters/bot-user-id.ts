import { WebClient } from '@slack/web-api';
import { ENV } from '../shared/env.ts';
import { getSlackSecret } from './secrets.ts';

/**
 * The bot's own Slack user id, so its own messages are recognised. Configured
 * (`SLACK_BOT_USER_ID`): that one. Otherwise Slack's `auth.test` with the bot token names it,
 * once per cold start, and it is put into the environment for every reader there; one deploy
 * is then enough (the id exists only once the app is installed). A failure is not cached: the
 * next event asks again, and until then the event fails and is retried, since routing without
 * knowing the bot's messages could answer the bot itself.
 */

class BotIdentityError extends Error {
  override readonly name = 'BotIdentityError';
}

let pending: Promise<string> | undefined;

export function resolveBotUserId(
  env: NodeJS.ProcessEnv = process.env,
  authTest: (env: NodeJS.ProcessEnv) => Promise<string | undefined> = slackAuthTest,
): Promise<string> {
  const configured = env[ENV.botUserId];
  if (configured) return Promise.resolve(configured);
  pending ??= authTest(env)
    .then((id) => {
      if (!id) throw new BotIdentityError('auth.test named no user: is the token a bot token (xoxb-)?');
      env[ENV.botUserId] = id;
      return id;
    })
    .finally(() => {
      pending = undefined;
    });
  return pending;
}

async function slackAuthTest(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const { botToken } = await getSlackSecret(env);
  const slackApiUrl = env[ENV.slackApiUrl];
  const client = new WebClient(botToken, { ...(slackApiUrl ? { slackApiUrl } : {}), timeout: 5_000 });
  return (await client.auth.test()).user_id;
}
