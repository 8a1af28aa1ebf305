import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { sendToInbox } from '../adapters/inbox-queue.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import { createIngressHandler, type IngressHandler } from '../ingress/handle-ingress.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';

const logger = createLogger('ingress');

/**
 * Built once per Lambda instance, on the first request rather than at import, so the
 * sandbox can load this module before it sets the environment (as `wiring.ts` does).
 */
let ingress: IngressHandler | undefined;

function createIngress(): IngressHandler {
  // The SDK reads AWS_ENDPOINT_URL_SQS (the sandbox's SQS locally), but by default sends to
  // the QueueUrl's host whenever that differs from an endpoint set that way;
  // `useQueueUrlAsEndpoint: false` keeps the configured endpoint authoritative. In AWS the
  // two agree, so this changes nothing there.
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  const botUserId = process.env[ENV.botUserId] || undefined;
  if (botUserId === undefined)
    logger.warn(`${ENV.botUserId} is not set: the bot's own messages are not recognised`);
  return createIngressHandler({
    getSigningSecret: async () => (await getSlackSecret()).signingSecret,
    enqueue: async (envelope) => {
      await sendToInbox(sqs, requireEnv(ENV.inboxQueueUrl), envelope);
    },
    now: Date.now,
    logger,
    botUserId,
  });
}

/** Lambda Function URL handler for Slack's Events API, slash commands and interactivity. */
export async function handler(
  event: APIGatewayProxyEventV2,
  context?: Context,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (context) logger.addContext(context);
  ingress ??= createIngress();
  return ingress(event);
}
