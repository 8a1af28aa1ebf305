import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendToInbox } from '../../lambdas/adapters/inbox-queue.ts';
import { createIngressHandler } from '../../lambdas/ingress/handle-ingress.ts';
import {
  deduplicationId,
  type EnvelopeStore,
  InboxRecord,
  MAX_ENVELOPE_BYTES,
  messageGroupId,
  resolveInboxRecord,
} from '../../lambdas/kernel/inbox.ts';
import { listenSqsApi } from '../../local/sqs/api.ts';
import {
  BOT_USER_ID,
  FORM_TYPE,
  JSON_TYPE,
  messageEvent,
  recordingLogger,
  SIGNING_SECRET,
  signedRequest,
  slashCommand,
} from './slack-requests.ts';

/** The SQS emulator's server, as listenSqsApi starts it. */
type SqsApiServer = Awaited<ReturnType<typeof listenSqsApi>>;

/**
 * case by case: validly signed requests that got a 500 (which Slack retries
 * forever) now get a 2xx when they can be kept and a 4xx with `x-slack-no-retry` when they
 * cannot. Against the sandbox's SQS emulator, which refuses what SQS refuses.
 */

let api: SqsApiServer;
let sqs: SQSClient;
let queueUrl: string;
const stored = new Map<string, string>();
const envelopes: EnvelopeStore = {
  putEnvelope: async (key, body) => void stored.set(key, body),
  getEnvelope: async (key) => stored.get(key),
};

beforeAll(async () => {
  api = await listenSqsApi();
  sqs = new SQSClient({
    endpoint: api.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  sqs?.destroy();
  await api?.close();
});
beforeEach(() => {
  queueUrl = api.service.createQueue({
    QueueName: `inbox-${Math.random().toString(36).slice(2)}.fifo`,
    Attributes: { FifoQueue: 'true' },
  }).QueueUrl;
  stored.clear();
});

const now = () => Math.floor(Date.now() / 1000);

function handler() {
  return createIngressHandler({
    getSigningSecret: async () => SIGNING_SECRET,
    enqueue: async (envelope) => {
      await sendToInbox(sqs, queueUrl, envelope, { envelopes });
    },
    now: Date.now,
    logger: recordingLogger(),
    botUserId: BOT_USER_ID,
    slashCommands: ['/prd'],
  });
}

async function queued(): Promise<InboxRecord[]> {
  const { Messages = [] } = await api.service.receiveMessage({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 });
  return Messages.map((m) => InboxRecord.parse(JSON.parse(m.Body)));
}

describe('requests that got a 500 before', () => {
  it.each([['[object Object]'], ['1e 308'], ['C'.repeat(200)]])(
    'enqueues a slash command from channel %j under a valid group id',
    async (channel) => {
      const response = await handler()(
        signedRequest({
          body: slashCommand({ channel_id: channel }),
          contentType: FORM_TYPE,
          timestamp: now(),
        }),
      );

      expect(response.statusCode).toBe(200);
      const [record] = await queued();
      expect(record).toMatchObject({ kind: 'slash_command', channel });
    },
  );

  it('enqueues a slash command from a user id with a space (its group names the user)', async () => {
    const response = await handler()(
      signedRequest({ body: slashCommand({ user_id: 'U 1' }), contentType: FORM_TYPE, timestamp: now() }),
    );

    expect(response.statusCode).toBe(200);
    expect(await queued()).toEqual([expect.objectContaining({ kind: 'slash_command', user: 'U 1' })]);
  });

  it('enqueues a message from a user id with a space, in the same group as the rest of its thread', async () => {
    const handle = handler();
    const thread = { thread_ts: '1735689500.000001' };

    const first = await handle(
      signedRequest({
        body: messageEvent({ user: 'U 1', ...thread }),
        contentType: JSON_TYPE,
        timestamp: now(),
      }),
    );
    const second = await handle(
      signedRequest({
        body: messageEvent({ user: 'U2', ts: '1735689700.000100', ...thread }, { event_id: 'Ev0002' }),
        contentType: JSON_TYPE,
        timestamp: now(),
      }),
    );

    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    const { Messages = [] } = await api.service.receiveMessage({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['MessageGroupId'],
    });
    expect(Messages.map((m) => (JSON.parse(m.Body) as { user: string }).user)).toEqual(['U 1', 'U2']);
    expect(Messages.map((m) => m.Attributes?.MessageGroupId)).toEqual([
      'C0001:1735689500.000001',
      'C0001:1735689500.000001',
    ]);
  });

  it('keeps a 300 KB message in the table, enqueues its reference, and gives the Router the whole message', async () => {
    const text = 'é'.repeat(150_000);

    const response = await handler()(
      signedRequest({ body: messageEvent({ text }), contentType: JSON_TYPE, timestamp: now() }),
    );

    expect(response.statusCode).toBe(200);
    const [record] = await queued();
    expect(record).toMatchObject({ kind: 'stored', eventId: 'Ev0001', storedKind: 'message' });
    if (record === undefined) throw new Error('nothing queued');
    expect(await resolveInboxRecord(record, envelopes)).toMatchObject({ kind: 'message', text });
  });

  it('refuses a message too large to keep at all with 413 and no retry', async () => {
    const text = 'x'.repeat(MAX_ENVELOPE_BYTES);

    const response = await handler()(
      signedRequest({ body: messageEvent({ text }), contentType: JSON_TYPE, timestamp: now() }),
    );

    expect(response.statusCode).toBe(413);
    expect(response.headers['x-slack-no-retry']).toBe('1');
    expect(await queued()).toEqual([]);
  });

  it('refuses a signed message with a 1,000-character channel id with 400 and no retry', async () => {
    const response = await handler()(
      signedRequest({
        body: messageEvent({ channel: 'C'.repeat(1_000) }),
        contentType: JSON_TYPE,
        timestamp: now(),
      }),
    );

    expect(response.statusCode).toBe(400);
    expect(response.headers['x-slack-no-retry']).toBe('1');
    expect(await queued()).toEqual([]);
  });

  it('answers an unknown slash command honestly and enqueues nothing', async () => {
    const response = await handler()(
      signedRequest({ body: slashCommand({ command: '/foo' }), contentType: FORM_TYPE, timestamp: now() }),
    );

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      response_type: 'ephemeral',
      text: '/foo is not a command this app handles.',
    });
    expect(await queued()).toEqual([]);
  });
});

describe('SQS ids for any key', () => {
  /** The SQS id of `key`: a deduplication id is the event id made valid for SQS. */
  const sqsId = (key: string) => deduplicationId({ eventId: key });

  it('keeps a valid key as it is and hashes any other, deterministically and without merging keys', () => {
    expect(sqsId('C0001:1735689500.000001')).toBe('C0001:1735689500.000001');
    expect(sqsId('a b')).toMatch(/^h~[A-Za-z0-9_-]{43}$/);
    expect(sqsId('a b')).toBe(sqsId('a b'));
    expect(sqsId('a b')).not.toBe(sqsId('a_b'));
    expect(sqsId('x'.repeat(129))).not.toBe(sqsId('x'.repeat(130)));
  });

  it('groups a GitHub issue and an incident by their own keys', () => {
    expect(
      messageGroupId({
        kind: 'alert',
        eventId: 'e',
        receivedAt: '',
        source: 'pagerduty',
        name: 'Checkout API',
        incidentKey: 'Q1',
        state: 'incident.triggered',
        opens: true,
        user: 'pagerduty',
        title: '',
        text: '',
        ts: '1.000001',
      }),
    ).toBe('alert:pagerduty:Q1');
  });
});
