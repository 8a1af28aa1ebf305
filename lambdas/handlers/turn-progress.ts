import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoPostLedger } from '../adapters/dynamo-post-ledger.ts';
import { DynamoProgressStore } from '../adapters/dynamo-progress-store.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import { systemClock } from '../kernel/ports.ts';
import type { DrainedMessage } from '../kernel/tasks.ts';
import { openTurnProgress } from '../progress/open-turn-progress.ts';
import type { ProgressLogger } from '../progress/ports.ts';
import type { TimelinePlan } from '../progress/timeline.ts';
import type { TurnProgress, TurnProgressDeps } from '../progress/turn-progress.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createProgressClient } from '../slack/progress-client.ts';
import { kernelDeps } from './wiring.ts';

let built: Promise<TurnProgressDeps> | undefined;

/** Whether agent turns show live progress (`LIVE_PROGRESS`, on unless `off`). */
export function liveProgressEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[ENV.liveProgress] !== 'off';
}

/** The AgentTurn's live progress: the real adapters, built once per instance. */
export function startTurnProgress(
  input: { conversationId: string; turn: number; messages: readonly DrainedMessage[] },
  options: { logger: ProgressLogger; plan?: TimelinePlan | undefined },
): Promise<TurnProgress | undefined> {
  if (!liveProgressEnabled()) return Promise.resolve(undefined);
  return openTurnProgress(input, {
    conversation: (id) => kernelDeps().store.getConversation(id),
    progress: () => {
      built ??= buildDeps(options.logger).catch((error: unknown) => {
        built = undefined;
        throw error;
      });
      return built;
    },
    plan: options.plan,
    logger: options.logger,
  });
}

async function buildDeps(logger: ProgressLogger): Promise<TurnProgressDeps> {
  const { botToken } = await getSlackSecret();
  const slackApiUrl = process.env[ENV.slackApiUrl];
  const table = {
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
    retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
  };
  return {
    slack: createProgressClient({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) }),
    store: new DynamoProgressStore(table),
    posts: new DynamoPostLedger(table),
    clock: systemClock,
    logger,
  };
}
