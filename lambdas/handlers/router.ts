import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { setAside } from '../adapters/inbox-queue.ts';
import { InvalidInboxRecordError } from '../kernel/errors.ts';
import { InboxEnvelope } from '../kernel/inbox.ts';
import { systemClock } from '../kernel/ports.ts';
import { routeEnvelope } from '../kernel/route.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger, createMetrics } from '../shared/logger.ts';
import { channelConversations } from './channel-wiring.ts';
import { kernelDeps, workflowRegistrations } from './wiring.ts';

const logger = createLogger('router');
const metrics = createMetrics('router');

function parseRecord(record: SQSRecord): InboxEnvelope {
  try {
    return InboxEnvelope.parse(JSON.parse(record.body));
  } catch (cause) {
    throw new InvalidInboxRecordError(record.messageId, { cause });
  }
}

let sqs: SQSClient | undefined;

function channelDeps() {
  const handle = channelConversations(logger);
  return handle ? { channelConversations: handle } : {};
}

async function routeRecord(record: SQSRecord): Promise<void> {
  let envelope: InboxEnvelope;
  try {
    envelope = parseRecord(record);
  } catch (error) {
    // No retry can route it: set it aside now instead of holding up its conversation.
    sqs ??= new SQSClient({ useQueueUrlAsEndpoint: false });
    await setAside(
      sqs,
      requireEnv(ENV.inboxDeadLetterQueueUrl),
      {
        messageId: record.messageId,
        body: record.body,
        groupId: record.attributes.MessageGroupId ?? 'unknown',
      },
      (error as Error).message,
    );
    logger.error('set aside an inbox record that is not an envelope', { messageId: record.messageId, error });
    metrics.addMetric('SetAside', MetricUnit.Count, 1);
    return;
  }
  const outcome = await routeEnvelope(envelope, {
    ...kernelDeps(),
    clock: systemClock,
    workflows: workflowRegistrations(),
    botUserId: process.env[ENV.botUserId],
    ...channelDeps(),
  });
  const conversationId = 'conversationId' in outcome ? outcome.conversationId : undefined;
  logger.info('routed inbox record', {
    ...(conversationId ? { conversationId } : {}),
    eventId: envelope.eventId,
    kind: envelope.kind,
    outcome,
  });
  metrics.addMetric(`Routed_${outcome.type}`, MetricUnit.Count, 1);
  if (outcome.type === 'stored' && outcome.wake.outcome === 'woken')
    metrics.addMetric('WaitsWoken', MetricUnit.Count, 1);
}

/**
 * Takes inbox records in FIFO order. A record that fails is reported back (partial batch
 * failure) together with the later records of its message group, so its conversation keeps
 * Slack's order while other conversations in the batch go on; after the queue's redrive
 * count it lands in the DLQ.
 */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  // A processor per invocation: it holds the batch's state, and the sandbox runs several
  // invocations at once in one process (in Lambda, one instance runs one at a time).
  const processor = new SqsFifoPartialProcessorAsync();
  try {
    return await processPartialResponse(event, routeRecord, processor, { context, skipGroupOnError: true });
  } finally {
    metrics.publishStoredMetrics();
  }
}
