import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { resolveBotUserId } from '../../../adapters/bot-user-id.ts';
import { DynamoPostLedger } from '../../../adapters/dynamo-post-ledger.ts';
import { getSlackSecret } from '../../../adapters/secrets.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { systemClock } from '../../../kernel/ports.ts';
import { ENV, requireEnv } from '../../../shared/env.ts';
import { createLogger } from '../../../shared/logger.ts';
import { postToSlack } from '../../../slack/post-to-slack.ts';
import { NO_TEMPLATES } from '../../../slack/templates/index.ts';
import { createSlackPoster, type SlackClient } from '../../../slack/web-client.ts';
import { createMessageUpdater, type MessageUpdater } from '../adapters/slack-progress.ts';
import { showPhase } from '../progress-post.ts';
import { PHASES } from '../record.ts';
import { incidentStore } from '../wiring.ts';

const logger = createLogger('incident-progress');

export const IncidentProgressInput = z.object({
  conversationId: z.string().min(1),
  phase: z.enum(PHASES),
});

let slack: { poster: SlackClient; updater: MessageUpdater } | undefined;

async function slackClients() {
  if (!slack) {
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    const options = { token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) };
    slack = { poster: createSlackPoster(options), updater: createMessageUpdater(options) };
  }
  return slack;
}

/** IncidentProgress: posts a phase's message in the incident thread, or updates it in place. */
export const handler = taskHandler({
  task: 'IncidentProgress',
  schema: IncidentProgressInput,
  logger,
  run: async (input) => {
    const { poster, updater } = await slackClients();
    const botUserId = await resolveBotUserId();
    const store = kernelDeps().store;
    const tableName = requireEnv(ENV.tableName);
    return showPhase(input, {
      incidents: incidentStore(),
      updater,
      post: (args) =>
        postToSlack(args, {
          store,
          slack: poster,
          clock: systemClock,
          botUserId,
          posts: new DynamoPostLedger({ client: new DynamoDBClient({}), tableName }),
          templates: NO_TEMPLATES,
        }),
    });
  },
  summary: (input, output) => ({ phase: input.phase, ts: output.ts, updated: output.updated }),
});
