import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendToInbox } from '../../lambdas/adapters/inbox-queue.ts';
import { createIngressHandler } from '../../lambdas/ingress/handle-ingress.ts';
import { InboxEnvelope } from '../../lambdas/kernel/inbox.ts';
import { restoreEnvironment } from '../support/environment.ts';
import {
  BOT_USER_ID,
  JSON_TYPE,
  messageEvent,
  recordingLogger,
  SIGNING_SECRET,
  signedRequest,
} from './slack-requests.ts';
import { type SqsJsonServer, startSqsJsonServer } from './sqs-json-server.ts';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/inbox.fifo';

let sqsServer: SqsJsonServer;

beforeAll(async () => {
  sqsServer = await startSqsJsonServer();
});

afterEach(() => {
  sqsServer.calls.length = 0;
  sqsServer.failWith = undefined;
});

afterAll(async () => {
  await sqsServer.close();
});

function handlerWithRealSqs() {
  const sqs = new SQSClient({
    endpoint: sqsServer.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
  });
  const logger = recordingLogger();
  const handle = createIngressHandler({
    getSigningSecret: async () => SIGNING_SECRET,
    enqueue: async (envelope) => {
      await sendToInbox(sqs, QUEUE_URL, envelope);
    },
    now: Date.now,
    logger,
    botUserId: BOT_USER_ID,
  });
  return { handle, logger };
}

const now = () => Math.floor(Date.now() / 1000);

describe('ingress with the real SQS client', () => {
  it('sends SendMessage with the conversation group, the event id as dedup id, and the envelope as body', async () => {
    const { handle } = handlerWithRealSqs();

    const response = await handle(
      signedRequest({
        body: messageEvent({ thread_ts: '1735689500.000001' }),
        contentType: JSON_TYPE,
        timestamp: now(),
      }),
    );

    expect(response.statusCode).toBe(200);
    expect(sqsServer.calls).toHaveLength(1);
    const [call] = sqsServer.calls;
    expect(call?.target).toBe('AmazonSQS.SendMessage');
    expect(call?.contentType).toBe('application/x-amz-json-1.0');
    expect(call?.input).toMatchObject({
      QueueUrl: QUEUE_URL,
      MessageGroupId: 'C0001:1735689500.000001',
      MessageDeduplicationId: 'Ev0001',
    });
    const envelope = InboxEnvelope.parse(JSON.parse(String(call?.input.MessageBody)));
    expect(envelope).toMatchObject({ kind: 'message', eventId: 'Ev0001', threadTs: '1735689500.000001' });
  });

  it('answers 500 and names the failure when SQS refuses the message', async () => {
    const { handle, logger } = handlerWithRealSqs();
    sqsServer.failWith = { status: 400, type: 'QueueDoesNotExist' };

    const response = await handle(
      signedRequest({ body: messageEvent(), contentType: JSON_TYPE, timestamp: now() }),
    );

    expect(response.statusCode).toBe(500);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        attributes: expect.objectContaining({
          error: expect.objectContaining({
            name: 'InboxEnqueueError',
            cause: expect.stringContaining('QueueDoesNotExist'),
          }),
        }),
      }),
    );
  });

  it('translates an SDK failure into InboxEnqueueError with its fault and cause', async () => {
    const sqs = new SQSClient({
      endpoint: sqsServer.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    sqsServer.failWith = { status: 400, type: 'QueueDoesNotExist' };
    const envelope = InboxEnvelope.parse({
      kind: 'message',
      eventId: 'Ev9',
      channel: 'C1',
      user: 'U1',
      receivedAt: '2025-01-01T00:00:00.000Z',
      text: '',
      ts: '1.000001',
      mentionsBot: false,
    });

    const failure = await sendToInbox(sqs, QUEUE_URL, envelope).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({
      name: 'InboxEnqueueError',
      message: 'could not put event Ev9 on the inbox',
      eventId: 'Ev9',
      fault: 'client',
    });
    expect((failure as Error).cause).toMatchObject({ name: 'QueueDoesNotExist' });
  });
});

describe('the Lambda entry (lambdas/handlers/ingress.ts)', () => {
  // Regression: with the endpoint set only through AWS_ENDPOINT_URL_SQS, the SDK sent to the
  // QueueUrl's host (AWS) instead, because useQueueUrlAsEndpoint defaults to true.
  it('sends through AWS_ENDPOINT_URL_SQS even when the queue URL names the AWS host', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SQS: sqsServer.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
      INBOX_QUEUE_URL: QUEUE_URL,
      TABLE_NAME: 'conversations',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_BOT_USER_ID: BOT_USER_ID,
      LOG_LEVEL: 'SILENT',
    });
    try {
      const { handler } = await import('../../lambdas/handlers/ingress.ts');
      const request = signedRequest({ body: messageEvent(), contentType: JSON_TYPE, timestamp: now() });
      const own = signedRequest({
        body: messageEvent({ user: BOT_USER_ID }, { event_id: 'Ev0002' }),
        contentType: JSON_TYPE,
        timestamp: now(),
      });

      const response = await handler(request as Parameters<typeof handler>[0]);
      const ownResponse = await handler(own as Parameters<typeof handler>[0]);

      expect([response.statusCode, ownResponse.statusCode]).toEqual([200, 200]);
      expect(sqsServer.calls.map((call) => call.input.MessageDeduplicationId)).toEqual(['Ev0001']);
    } finally {
      restoreEnvironment(saved);
    }
  });
});
