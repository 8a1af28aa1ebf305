import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoPostLedger } from '../adapters/dynamo-post-ledger.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import { systemClock } from '../kernel/ports.ts';
import { SlackPostInput, type SlackPostOutput } from '../kernel/tasks.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { postToSlack } from '../slack/post-to-slack.ts';
import { createSlackPoster, type SlackClient } from '../slack/web-client.ts';
import { taskHandler } from './task-handler.ts';
import { kernelDeps } from './wiring.ts';

const logger = createLogger('slack-post');
let poster: SlackClient | undefined;
let ledger: DynamoPostLedger | undefined;

async function slackPoster(): Promise<SlackClient> {
  if (!poster) {
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    poster = createSlackPoster({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
  }
  return poster;
}

/** Posts for a workflow, records the post in the conversation, and anchors new threads. */
export const handler = taskHandler({
  task: 'SlackPost',
  schema: SlackPostInput,
  logger,
  run: async (input): Promise<SlackPostOutput> => {
    const deps = kernelDeps();
    ledger ??= new DynamoPostLedger({
      client: new DynamoDBClient({}),
      tableName: requireEnv(ENV.tableName),
      retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
    });
    return postToSlack(input, {
      store: deps.store,
      posts: ledger,
      slack: await slackPoster(),
      clock: systemClock,
      botUserId: process.env[ENV.botUserId] ?? 'bot',
    });
  },
  summary: (input, output) => ({ channel: output.channel, ts: output.ts, anchor: input.anchor?.name }),
});
