import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { handler as router } from '../../lambdas/handlers/router.ts';
import { listenSqsApi } from '../../local/sqs/api.ts';
import { type EventSource, startEventSource } from '../../local/sqs/event-source.ts';
import type { SqsQueueService } from '../../local/sqs/queue-service.ts';
import { reporterReply, seedBugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { eventually } from '../support/eventually.ts';
import { standingQueueClock } from '../support/queue-clock.ts';

/** The SQS emulator's server, as listenSqsApi starts it. */
type SqsApiServer = Awaited<ReturnType<typeof listenSqsApi>>;

/**
 * The inbox as deployed (FIFO, redrive after a few receives) feeding the real Router:
 * a record that keeps failing ends in the DLQ, other conversations are not held up, and
 * the failing conversation keeps Slack's order.
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
  for (const id of ['conv-a', 'conv-b']) await seedBugConversation(store, id);
  dlq = sqs.createQueue({ QueueName: 'inbox-dlq.fifo', Attributes: { FifoQueue: 'true' } }).QueueUrl;
  inbox = sqs.createQueue({
    QueueName: 'inbox.fifo',
    Attributes: {
      FifoQueue: 'true',
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: sqs.queueArn(dlq), maxReceiveCount: 3 }),
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

const reply = reporterReply;

const send = (group: string, id: string, body: string) =>
  sqs.sendMessage({ QueueUrl: inbox, MessageBody: body, MessageGroupId: group, MessageDeduplicationId: id });

describe('the inbox and the Router', () => {
  it('sets aside a record that can never be routed, and its conversation goes on in order', async () => {
    send('C_BUGS:conv-a-root', 'bad', '{"kind":"message","ts":');
    send('C_BUGS:conv-a-root', 'a2', reply('conv-a', '1700000001.000002'));
    send('C_BUGS:conv-b-root', 'b1', reply('conv-b', '1700000001.000001'));

    await queueClock.drain(sqs, source, inbox);

    expect((await store.listMessages('conv-b')).map((m) => m.ts)).toEqual(['1700000001.000001']);
    expect((await store.listMessages('conv-a')).map((m) => m.ts)).toEqual(['1700000001.000002']);
    const dead = await sqs.receiveMessage({
      QueueUrl: dlq,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
    });
    expect(dead.Messages?.map((m) => m.Body)).toEqual(['{"kind":"message","ts":']);
    expect(dead.Messages?.[0]?.MessageAttributes?.reason?.StringValue).toMatch(/not a valid envelope/);
    await sqs.deleteMessage({ QueueUrl: dlq, ReceiptHandle: dead.Messages?.[0]?.ReceiptHandle });
  });

  it('retries a record that fails, holding back its conversation only, and dead-letters it after the redrive count', async () => {
    // A thread pointing at a conversation that cannot be read: every attempt fails.
    await store.linkThread({
      conversationId: 'conv-b',
      ownerId: 'U_REPORTER',
      anchor: {
        name: 'broken',
        channel: 'C_BUGS',
        threadTs: 'broken-root',
        ownerRole: 'reporter',
        othersRole: null,
      },
    });
    await db.client.send(
      new PutItemCommand({
        TableName: db.tableName,
        Item: {
          pk: { S: 'THREAD#C_BUGS#broken-root' },
          sk: { S: 'THREAD' },
          conversationId: { S: 'missing' },
        },
      }),
    );
    send('C_BUGS:broken-root', 'c1', reply('broken', '1700000002.000001'));
    send('C_BUGS:broken-root', 'c2', reply('broken', '1700000002.000002'));
    send('C_BUGS:conv-b-root', 'b2', reply('conv-b', '1700000002.000003'));

    // The other conversation goes on at once.
    await eventually(
      async () => (await store.listMessages('conv-b')).length,
      (count) => count === 2,
      "conv-b's second message",
    );
    await queueClock.drain(sqs, source, inbox);

    // Both records of the failing thread end in the DLQ, in their order, for a replay.
    const dead = await sqs.receiveMessage({ QueueUrl: dlq, MaxNumberOfMessages: 10 });
    expect(dead.Messages?.map((m) => (JSON.parse(m.Body ?? '{}') as { ts: string }).ts)).toEqual([
      '1700000002.000001',
      '1700000002.000002',
    ]);
  });
});
