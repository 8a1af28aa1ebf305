import { getSlackSecret } from '../adapters/secrets.ts';
import { systemClock } from '../kernel/ports.ts';
import { SlackPostInput, type SlackPostOutput } from '../kernel/tasks.ts';
import { ENV } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { postToSlack } from '../slack/post-to-slack.ts';
import { createSlackPoster, type SlackPoster } from '../slack/web-client.ts';
import { parseTaskInput } from './parse-task-input.ts';
import { kernelDeps } from './wiring.ts';

const logger = createLogger('slack-post');
let poster: SlackPoster | undefined;

async function slackPoster(): Promise<SlackPoster> {
  if (!poster) {
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    poster = createSlackPoster({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
  }
  return poster;
}

export async function handler(event: unknown): Promise<SlackPostOutput> {
  const input = parseTaskInput('SlackPost', SlackPostInput, event);
  const deps = kernelDeps();
  const output = await postToSlack(input, {
    store: deps.store,
    posts: deps.store,
    slack: await slackPoster(),
    clock: systemClock,
    botUserId: process.env[ENV.botUserId] ?? 'bot',
  });
  logger.info('posted to Slack', {
    conversationId: input.conversationId,
    channel: output.channel,
    ts: output.ts,
    anchor: input.anchor?.name,
  });
  return output;
}
