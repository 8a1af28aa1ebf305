import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod';
import { resolveBotUserId } from '../adapters/bot-user-id.ts';
import { DynamoEnvelopeStore } from '../adapters/dynamo-envelopes.ts';
import { sendToInbox } from '../adapters/inbox-queue.ts';
import { getSlackSecret, getWebhookSecret } from '../adapters/secrets.ts';
import { createIngressHandler, type IngressHandler } from '../ingress/handle-ingress.ts';
import { type SlashCommandUsage, SlashCommandUsages } from '../kernel/slash-command-help.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';

const logger = createLogger('ingress');

/**
 * Built once per Lambda instance, on the first request rather than at import, so the
 * sandbox can load this module before it sets the environment (as `wiring.ts` does).
 */
let ingress: IngressHandler | undefined;

const SlashCommands = z.array(z.string().startsWith('/'));

function slashCommands(): readonly string[] | undefined {
  const raw = process.env[ENV.slashCommands];
  if (raw === undefined || raw === '') {
    logger.warn(`${ENV.slashCommands} is not set: every slash command is passed to the Router`);
    return undefined;
  }
  return SlashCommands.parse(JSON.parse(raw));
}

/** What each slash command takes (`SLASH_COMMAND_USAGE`), for its help; absent, commands pass as typed. */
function slashCommandUsage(): readonly SlashCommandUsage[] | undefined {
  const raw = process.env[ENV.slashCommandUsage];
  if (raw === undefined || raw === '') return undefined;
  return SlashCommandUsages.parse(JSON.parse(raw));
}

function createIngress(): IngressHandler {
  // The SDK reads AWS_ENDPOINT_URL_SQS (the sandbox's SQS locally), but by default sends to
  // the QueueUrl's host whenever that differs from an endpoint set that way;
  // `useQueueUrlAsEndpoint: false` keeps the configured endpoint authoritative. In AWS the
  // two agree, so this changes nothing there.
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  // Messages too large for SQS wait in the table for the Router (hence the ingress's table access).
  const envelopes = new DynamoEnvelopeStore({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
    retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
  });
  const botUserId = process.env[ENV.botUserId] || undefined;
  return createIngressHandler({
    getSigningSecret: async () => (await getSlackSecret()).signingSecret,
    getGithubWebhookSecret: () =>
      getWebhookSecret({ override: ENV.githubWebhookSecret, arn: ENV.githubWebhookSecretArn }),
    getPagerdutyWebhookSecret: () =>
      getWebhookSecret({ override: ENV.pagerdutyWebhookSecret, arn: ENV.pagerdutyWebhookSecretArn }),
    enqueue: async (envelope) => {
      await sendToInbox(sqs, requireEnv(ENV.inboxQueueUrl), envelope, { envelopes });
    },
    now: Date.now,
    logger,
    botUserId,
    slashCommands: slashCommands(),
    slashCommandUsage: slashCommandUsage(),
  });
}

/**
 * Lambda handler for the Function URL (Slack's Events API, slash commands and interactivity;
 * GitHub and PagerDuty webhooks) and for the EventBridge rule's CloudWatch alarm events.
 */
export async function handler(
  event: APIGatewayProxyEventV2 | Record<string, unknown>,
  context?: Context,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (context) logger.addContext(context);
  // Before the ingress is built: it recognises the bot's own messages and mentions by this id.
  if (ingress === undefined) await resolveBotUserId();
  ingress ??= createIngress();
  return ingress(event);
}
