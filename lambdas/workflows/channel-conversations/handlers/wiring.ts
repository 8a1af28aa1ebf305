import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { resolveBotUserId } from '../../../adapters/bot-user-id.ts';
import { DynamoDailySpend } from '../../../adapters/dynamo-daily-spend.ts';
import { modelClientFromEnv } from '../../../adapters/model-client.ts';
import { createAgentMetrics, withModelMetrics } from '../../../adapters/model-metrics.ts';
import { getSlackSecret } from '../../../adapters/secrets.ts';
import { agentLimitsFrom } from '../../../agents/limits.ts';
import type { AgentLogger, ModelClient } from '../../../agents/ports.ts';
import { type ModelPrice, modelPriceFrom } from '../../../agents/pricing.ts';
import type { OtherLedger } from '../../../handlers/redaction-ledger.ts';
import type { InboxMessage } from '../../../kernel/inbox.ts';
import { systemClock } from '../../../kernel/ports.ts';
import { familyTotals } from '../../../redaction/index.ts';
import { ENV, requireEnv } from '../../../shared/env.ts';
import { createSlackPoster } from '../../../slack/web-client.ts';
import { SqsReplyQueue } from '../adapters/channel-replies-queue.ts';
import { DynamoChannelStore } from '../adapters/dynamo-channel-store.ts';
import { CHANNEL_ENV } from '../env.ts';
import { type ChannelOutcome, handleChannelMessage } from '../handle-channel-message.ts';
import { type ChannelSettings, ChannelSettingsSchema, isChannelConversationId } from '../model.ts';
import type { ChannelStore } from '../ports.ts';
import { createModelAnswerer, createModelJudge } from '../respond.ts';
import type { ResponderDeps } from '../respond-to-message.ts';
import { type ChannelSpending, pricedModel } from '../spending.ts';

export class InvalidChannelSettingsError extends Error {
  override readonly name = 'InvalidChannelSettingsError';
  constructor(options: { cause: unknown }) {
    super(`${CHANNEL_ENV.settings} is not valid channel conversation settings`, options);
  }
}

/** The settings in CHANNEL_CONVERSATIONS, or undefined when it is not set (channel conversations off). */
export function channelSettings(env: NodeJS.ProcessEnv = process.env): ChannelSettings | undefined {
  const raw = env[CHANNEL_ENV.settings];
  if (raw === undefined || raw === '') return undefined;
  try {
    return ChannelSettingsSchema.parse(JSON.parse(raw));
  } catch (cause) {
    throw new InvalidChannelSettingsError({ cause });
  }
}

export function channelStore(env: NodeJS.ProcessEnv = process.env): DynamoChannelStore {
  return new DynamoChannelStore({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName, env),
    retentionDays: Number(env[ENV.retentionDays] ?? 90),
  });
}

/**
 * The Router's channel conversation handler (record, then hand over to the responder), or
 * undefined when CHANNEL_CONVERSATIONS is not set (off). No secrets: the Router calls
 * neither the model nor Slack.
 */
export function channelConversations(
  logger: AgentLogger,
  env: NodeJS.ProcessEnv = process.env,
): ((message: InboxMessage) => Promise<ChannelOutcome>) | undefined {
  const settings = channelSettings(env);
  if (settings === undefined) return undefined;
  const deps = {
    store: channelStore(env),
    replies: new SqsReplyQueue({
      sqs: new SQSClient({ useQueueUrlAsEndpoint: false }),
      queueUrl: requireEnv(CHANNEL_ENV.repliesQueueUrl, env),
    }),
    clock: systemClock,
    settings,
    botUserId: env[ENV.botUserId],
    logger,
  };
  return (message) => handleChannelMessage(message, deps);
}

/** The responder's dependencies; the Slack secret (and the model's with the Anthropic API) is read here, once per instance. */
export async function responderDeps(
  settings: ChannelSettings,
  logger: AgentLogger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResponderDeps> {
  const modelId = requireEnv(ENV.modelId, env);
  await resolveBotUserId(env);
  const spending = channelSpending(settings, modelId, logger, env);
  // A chat answer: three attempts of at most 30 s each stay within the responder's timeout.
  const metered: ModelClient = withModelMetrics(await modelClientFromEnv(env, { timeoutMs: 30_000 }), {
    metrics: createAgentMetrics(),
    provider: env[ENV.modelProvider] ?? 'anthropic',
  });
  const model = pricedModel(metered, spending);
  const { botToken } = await getSlackSecret(env);
  const slackApiUrl = env[ENV.slackApiUrl];
  const slack = createSlackPoster({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
  return {
    store: channelStore(env),
    clock: systemClock,
    settings,
    answer: createModelAnswerer(model, modelId),
    slack,
    history: slack,
    botUserId: env[ENV.botUserId],
    ...(settings.useLlmJudge ? { judge: createModelJudge(model, settings.judgeModelId) } : {}),
    spending,
    logger,
  };
}

/**
 * Where channel conversations' redacted values are counted (the kernel's redaction ledger asks
 * it first): a channel conversation's own ledger item, since it has no kernel record.
 */
export function channelRedactionLedger(store: ChannelStore): OtherLedger {
  return async (conversationId, added) => {
    if (!isChannelConversationId(conversationId)) return false;
    const { secret, pii } = familyTotals(added);
    await store.addToLedger(conversationId, {
      redactedSecrets: secret,
      redactedPii: pii,
      redactedKinds: added,
    });
    return true;
  };
}

/**
 * The responder's money, from the variables agent turns read too (AGENT_LIMITS, MODEL_PRICE)
 * and the judge's price (CHANNEL_JUDGE_PRICE): the same table, the same daily counter.
 */
export function channelSpending(
  settings: ChannelSettings,
  modelId: string,
  logger: AgentLogger,
  env: NodeJS.ProcessEnv = process.env,
): ChannelSpending {
  const limits = agentLimitsFrom(env[ENV.agentLimits]);
  const prices: Record<string, ModelPrice> = {};
  const judgePrice = settings.useLlmJudge ? modelPriceFrom(env[CHANNEL_ENV.judgePrice]) : undefined;
  if (judgePrice !== undefined) prices[settings.judgeModelId] = judgePrice;
  const price = modelPriceFrom(env[ENV.modelPrice]);
  if (price !== undefined) prices[modelId] = price;
  if (limits.maxDailyCostUsd !== undefined && Object.keys(prices).length < (settings.useLlmJudge ? 2 : 1)) {
    // The stack always sets them; this is a hand-made deployment.
    logger.warn('a daily cost ceiling is configured but a model the responder calls has no price', {
      modelId,
      ...(settings.useLlmJudge ? { judgeModelId: settings.judgeModelId } : {}),
    });
  }
  const dailySpend = new DynamoDailySpend({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName, env),
    retentionDays: Number(env[ENV.retentionDays] ?? 90),
  });
  const store = channelStore(env);
  return {
    limits,
    dailySpend,
    reservations: dailySpend,
    prices,
    clock: systemClock,
    logger,
    ledger: (conversationId, delta) => store.addToLedger(conversationId, delta),
  };
}
