import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoReconcilerStore } from '../adapters/dynamo-reconciler.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import { systemClock } from '../kernel/ports.ts';
import { RECONCILER_FAILURE_TEXT, ReconcilerSettings, type Repair, reconcile } from '../kernel/reconcile.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { createSlackPoster, type SlackPoster } from '../slack/web-client.ts';
import { kernelDeps, workflowRegistrations } from './wiring.ts';

const logger = createLogger('reconciler');
let poster: SlackPoster | undefined;

async function slackPoster(): Promise<SlackPoster> {
  if (!poster) {
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    poster = createSlackPoster({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
  }
  return poster;
}

/**
 * The scheduled sweep (EventBridge, every few minutes): repairs conversations the event path
 * left stuck, or fails them visibly (see kernel/reconcile.ts). Logs one line per repair.
 */
export async function handler(): Promise<{ repairs: Repair[] }> {
  const deps = kernelDeps();
  const repairs = await reconcile({
    ...deps,
    reconciler: new DynamoReconcilerStore({
      client: new DynamoDBClient({}),
      tableName: requireEnv(ENV.tableName),
    }),
    workflows: workflowRegistrations(),
    clock: systemClock,
    settings: ReconcilerSettings.parse(JSON.parse(process.env[ENV.reconciler] ?? '{}')),
    notify: async (_conversation, where) => {
      await (await slackPoster()).postMessage({
        channel: where.channel,
        text: RECONCILER_FAILURE_TEXT,
        ...(where.threadTs ? { threadTs: where.threadTs } : {}),
      });
    },
  });
  for (const repair of repairs) logger.info('reconciled a stuck conversation', { ...repair });
  return { repairs };
}
