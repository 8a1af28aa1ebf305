import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoApprovalStore } from '../adapters/dynamo-approvals.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import {
  ApprovalWaitInput,
  type ApprovalWaitResult,
  expireApprovalWait,
  type ParkOutcome,
  parkApprovalWait,
} from '../kernel/approval-wait.ts';
import type { ApprovalNotices } from '../kernel/approvals.ts';
import { systemClock } from '../kernel/ports.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { createSlackApprovalNotices } from '../slack/approval-notices.ts';
import { taskHandler } from './task-handler.ts';
import { kernelDeps } from './wiring.ts';

const logger = createLogger('approval-wait');
let store: DynamoApprovalStore | undefined;
let notices: ApprovalNotices | undefined;

function approvalStore(): DynamoApprovalStore {
  store ??= new DynamoApprovalStore({ client: new DynamoDBClient({}), tableName: requireEnv(ENV.tableName) });
  return store;
}

async function slackNotices(): Promise<ApprovalNotices> {
  if (!notices) {
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    notices = createSlackApprovalNotices({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
  }
  return notices;
}

const warn = (message: string, details: Record<string, unknown>) => logger.warn(message, details);

/**
 * The approval wait's steps (statemachines/approval-wait.ts): `park` (a `.waitForTaskToken`
 * task: its result is what the Router sends, this return value is discarded) and `expire`.
 */
export const handler = taskHandler({
  task: 'ApprovalWait',
  schema: ApprovalWaitInput,
  logger,
  run: async (input): Promise<ParkOutcome | ApprovalWaitResult> => {
    if (input.step === 'park') {
      return parkApprovalWait(input, { store: approvalStore(), tasks: kernelDeps().executions, warn });
    }
    return expireApprovalWait(input, {
      store: approvalStore(),
      notices: await slackNotices(),
      clock: systemClock,
      warn,
    });
  },
  summary: (input, output) => ({ step: input.step, kind: input.kind, output }),
});
