import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { handler as router } from '../../lambdas/handlers/router.ts';
import { listenSqsApi } from '../../local/sqs/api.ts';
import { type EventSource, startEventSource } from '../../local/sqs/event-source.ts';
import type { SqsQueueService } from '../../local/sqs/queue-service.ts';
import { redriveDeadLetters } from '../../scripts/redrive-dead-letters.ts';
import { reporterReply, seedBugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { standingQueueClock } from '../support/queue-clock.ts';

/** The SQS emulator's server, as listenSqsApi starts it. */
type SqsApiServer = Awaited<ReturnType<typeof listenSqsApi>>;

/**
 * The DLQ redrive path: records the Router could not take while something was
 * broken are moved back to the inbox once it is fixed, and are then routed, in order, once.
 */

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let sqsApi: SqsApiServer;
let sqs: SqsQueueService;
let source: EventSource;
let inbox: string;
let dlq: string;

/** The queue's clock moves only between batches (test/support/queue-clock.ts). */
const queueClock = standingQueueClock();

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  sqsApi = await listenSqsApi({ now: queueClock.now });
  sqs = sqsApi.service;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SQS: sqsApi.endpoint,
    TABLE_NAME: db.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    WORKFLOWS: '[]',
    SLACK_BOT_USER_ID: 'U_BOT',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_DEV: 'true',
  });
  dlq = sqs.createQueue({ QueueName: 'redrive-dlq.fifo', Attributes: { FifoQueue: 'true' } }).QueueUrl;
  inbox = sqs.createQueue({
    QueueName: 'redrive-inbox.fifo',
    Attributes: {
      FifoQueue: 'true',
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: sqs.queueArn(dlq), maxReceiveCount: 2 }),
    },
  }).QueueUrl;
  process.env.INBOX_DLQ_URL = dlq;
  source = startEventSource({
    service: sqs,
    queueUrl: inbox,
    handler: router as never,
    concurrency: 2,
    onError: () => {},
  });
});
afterAll(async () => {
  await source?.stop();
  await sqsApi?.close();
  await db?.close();
});

describe('the inbox DLQ redrive', () => {
  it('routes, in order and once, the replies that were dead-lettered while their conversation could not be read', async () => {
    // The replies' thread record is unreadable (a bad deployment wrote it): every receive fails.
    await db.client.send(
      new PutItemCommand({
        TableName: db.tableName,
        Item: { pk: { S: 'THREAD#C_BUGS#late-root' }, sk: { S: 'THREAD' }, conversationId: { S: 'late' } },
      }),
    );
    for (const [id, ts] of [
      ['r1', '1700000003.000001'],
      ['r2', '1700000003.000002'],
    ] as const) {
      sqs.sendMessage({
        QueueUrl: inbox,
        MessageBody: reporterReply('late', ts),
        MessageGroupId: 'C_BUGS:late-root',
        MessageDeduplicationId: id,
      });
    }
    await queueClock.drain(sqs, source, inbox);
    expect(await store.listMessages('late')).toEqual([]);

    // Fixed: the conversation and its thread are stored properly now. The redrive moves both back; the Router takes them.
    await seedBugConversation(store, 'late');
    const client = new SQSClient({
      endpoint: sqsApi.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const result = await redriveDeadLetters({ sqs: client, from: dlq, to: inbox });
    await queueClock.drain(sqs, source, inbox);
    // A second redrive finds nothing: nothing is routed twice.
    const again = await redriveDeadLetters({ sqs: client, from: dlq, to: inbox });

    expect(result.moved).toBe(2);
    expect(again.moved).toBe(0);
    expect((await store.listMessages('late')).map((m) => m.ts)).toEqual([
      '1700000003.000001',
      '1700000003.000002',
    ]);
    client.destroy();
  });
});
