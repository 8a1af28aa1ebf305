import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resolveBotUserId } from '../adapters/bot-user-id.ts';
import { DynamoApprovalStore } from '../adapters/dynamo-approvals.ts';
import { DynamoOutbox } from '../adapters/dynamo-outbox.ts';
import { DynamoPostLedger } from '../adapters/dynamo-post-ledger.ts';
import { DynamoReconcilerStore } from '../adapters/dynamo-reconciler.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import { systemClock } from '../kernel/ports.ts';
import { RECONCILER_FAILURE_TEXT, ReconcilerSettings, type Repair, reconcile } from '../kernel/reconcile.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { flushOutboxes } from '../slack/outbox.ts';
import { KERNEL_TEMPLATES } from '../slack/templates/kernel-templates.ts';
import { createSlackPoster } from '../slack/web-client.ts';
import { kernelDeps, workflowRegistrations } from './wiring.ts';

const logger = createLogger('reconciler');
let poster: ReturnType<typeof createSlackPoster> | undefined;

async function slackPoster(): Promise<ReturnType<typeof createSlackPoster>> {
  if (!poster) {
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    poster = createSlackPoster({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
  }
  return poster;
}

/**
 * Posts kept through a Slack outage (lambdas/slack/outbox.ts), each with its delay line, in
 * every conversation that has some; what Slack still refuses stays kept for the next sweep.
 */
async function flushKeptPosts(): Promise<{ conversationId: string; posted: number; left: number }[]> {
  const client = new DynamoDBClient({});
  const tableName = requireEnv(ENV.tableName);
  const retentionDays = Number(process.env[ENV.retentionDays] ?? 90);
  const outbox = new DynamoOutbox({ client, tableName, retentionDays });
  // Nearly always nothing is kept: one query, and no Slack client or secret is needed.
  const waiting = await outbox.conversationsWaiting();
  if (waiting.length === 0) return [];
  const slack = await slackPoster();
  const flushed = await flushOutboxes({
    store: kernelDeps().store,
    slack,
    permalinks: slack,
    clock: systemClock,
    botUserId: await resolveBotUserId(),
    posts: new DynamoPostLedger({ client, tableName, retentionDays }),
    templates: KERNEL_TEMPLATES,
    approvals: new DynamoApprovalStore({ client, tableName }),
    outbox,
  });
  for (const entry of flushed)
    if (entry.posted > 0 || entry.left > 0)
      logger.info('posted kept posts after a Slack outage', { ...entry });
  return flushed;
}

/** The event of a sweep of kept posts only (the sandbox sends it every few seconds). */
interface SweepEvent {
  outboxOnly?: boolean;
}

/**
 * The scheduled sweep (EventBridge, every few minutes): repairs conversations the event path
 * left stuck, or fails them visibly (see kernel/reconcile.ts), and posts what a Slack outage
 * kept. Logs one line per repair.
 */
export async function handler(event?: SweepEvent): Promise<{ repairs: Repair[] }> {
  if (event?.outboxOnly === true) {
    await flushKeptPosts();
    return { repairs: [] };
  }
  // Kept posts first: a conversation's own repairs may post, and its kept posts go before.
  await flushKeptPosts().catch((error: unknown) => logger.error('could not post kept posts', { error }));
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
