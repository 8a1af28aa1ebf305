import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoEnvelopeStore } from '../adapters/dynamo-envelopes.ts';
import { InboxRecord, resolveInboxRecord } from '../kernel/inbox.ts';
import { systemClock } from '../kernel/ports.ts';
import { routeEnvelope } from '../kernel/route.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger, createMetrics } from '../shared/logger.ts';
import { channelConversations } from '../workflows/channel-conversations/handlers/wiring.ts';
import { endedNoticeDeps } from './ended-notice.ts';
import { processFifoBatch } from './fifo-batch.ts';
import { kernelDeps, workflowRegistrations } from './wiring.ts';

const logger = createLogger('router');
const metrics = createMetrics('router');

/** Built on the first record of an instance (its clients are reused), absent when channel conversations are off. */
let channel: { channelConversations?: NonNullable<ReturnType<typeof channelConversations>> } | undefined;

function channelDeps() {
  if (channel === undefined) {
    const handle = channelConversations(logger);
    channel = handle ? { channelConversations: handle } : {};
  }
  return channel;
}

let envelopes: DynamoEnvelopeStore | undefined;
let ended: ReturnType<typeof endedNoticeDeps> | undefined;

async function routeRecord(record: InboxRecord): Promise<void> {
  // An envelope too large for SQS waits in the table; the record is its reference.
  envelopes ??= new DynamoEnvelopeStore({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
  });
  ended ??= endedNoticeDeps(logger);
  const envelope = await resolveInboxRecord(record, envelopes);
  const outcome = await routeEnvelope(envelope, {
    ...kernelDeps(),
    clock: systemClock,
    workflows: workflowRegistrations(),
    botUserId: process.env[ENV.botUserId],
    ...channelDeps(),
    ...ended,
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
 * Takes inbox records in FIFO order, per Slack thread (see `processFifoBatch`): a record that
 * fails holds back the rest of its conversation, in order, while other conversations go on.
 */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processFifoBatch(event, context, {
    schema: InboxRecord,
    handle: routeRecord,
    deadLetterQueueUrl: () => requireEnv(ENV.inboxDeadLetterQueueUrl),
    describe: 'envelope',
    logger,
    metrics,
  });
}
