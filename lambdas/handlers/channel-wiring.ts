import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createAnthropicModel } from '../adapters/anthropic-model.ts';
import { DynamoChannelStore } from '../adapters/dynamo-channel-store.ts';
import { getModelApiKey } from '../adapters/model-secret.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import type { AgentLogger } from '../agents/ports.ts';
import {
  type ChannelDeps,
  type ChannelOutcome,
  handleChannelMessage,
} from '../channel/handle-channel-message.ts';
import { ChannelSettingsSchema } from '../channel/model.ts';
import { createModelAnswerer, createModelJudge } from '../channel/respond.ts';
import type { InboxMessage } from '../kernel/inbox.ts';
import { systemClock } from '../kernel/ports.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createSlackPoster } from '../slack/web-client.ts';

export class InvalidChannelSettingsError extends Error {
  override readonly name = 'InvalidChannelSettingsError';
  constructor(options: { cause: unknown }) {
    super(`${ENV.channelConversations} is not valid channel conversation settings`, options);
  }
}

/** Built on the first channel message of an instance (the model and Slack secrets are read then), then reused. */
let deps: Promise<ChannelDeps> | undefined;

async function buildDeps(raw: string, logger: AgentLogger, env: NodeJS.ProcessEnv): Promise<ChannelDeps> {
  let settings: ChannelDeps['settings'];
  try {
    settings = ChannelSettingsSchema.parse(JSON.parse(raw));
  } catch (cause) {
    throw new InvalidChannelSettingsError({ cause });
  }
  const baseURL = env[ENV.anthropicBaseUrl];
  const model = createAnthropicModel({
    apiKey: await getModelApiKey(env),
    ...(baseURL ? { baseURL } : {}),
    maxRetries: Number(env[ENV.modelMaxRetries] ?? 2),
  });
  const { botToken } = await getSlackSecret(env);
  const slackApiUrl = env[ENV.slackApiUrl];
  return {
    store: new DynamoChannelStore({
      client: new DynamoDBClient({}),
      tableName: requireEnv(ENV.tableName, env),
      retentionDays: Number(env[ENV.retentionDays] ?? 90),
    }),
    clock: systemClock,
    settings,
    answer: createModelAnswerer(model, requireEnv(ENV.modelId, env)),
    slack: createSlackPoster({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) }),
    botUserId: env[ENV.botUserId],
    ...(settings.useLlmJudge ? { judge: createModelJudge(model, settings.judgeModelId) } : {}),
    logger,
  };
}

/** The Router's channel conversation handler, or undefined when CHANNEL_CONVERSATIONS is not set (off). */
export function channelConversations(
  logger: AgentLogger,
  env: NodeJS.ProcessEnv = process.env,
): ((message: InboxMessage) => Promise<ChannelOutcome>) | undefined {
  const raw = env[ENV.channelConversations];
  if (raw === undefined || raw === '') return undefined;
  return async (message) => {
    deps ??= buildDeps(raw, logger, env).catch((error: unknown) => {
      deps = undefined;
      throw error;
    });
    return handleChannelMessage(message, await deps);
  };
}
