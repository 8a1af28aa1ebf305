import { createHmac } from 'node:crypto';
import { SQSClient } from '@aws-sdk/client-sqs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendToInbox } from '../../lambdas/adapters/inbox-queue.ts';
import { createIngressHandler } from '../../lambdas/ingress/handle-ingress.ts';
import { computeSlackSignature } from '../../lambdas/ingress/verify-slack-request.ts';
import {
  deduplicationId,
  type EnvelopeStore,
  InboxEnvelope,
  InboxRecord,
  resolveInboxRecord,
} from '../../lambdas/kernel/inbox.ts';
import { listenSqsApi } from '../../local/sqs/api.ts';
import { FORM_TYPE, type IngressEvent, JSON_TYPE, recordingLogger } from './slack-requests.ts';
import { alarmStateChange, githubExample, pagerdutyIncident } from './webhooks.ts';

/** The SQS emulator's server, as listenSqsApi starts it. */
type SqsApiServer = Awaited<ReturnType<typeof listenSqsApi>>;

/**
 * validly signed requests of every kind, over random and adversarial
 * bodies, headers and sizes, through the real ingress handler and the real SQS client against
 * the sandbox's SQS emulator (which checks group ids, deduplication ids, body characters and
 * sizes as SQS does). No response is 5xx; a 2xx that enqueued put exactly one message on the
 * queue (none when SQS's deduplication had the id already), delivered whole; a 4xx put none.
 * `FUZZ_RUNS` changes the number of requests (default 10,000).
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SLACK_SECRET = `slack-${Math.random().toString(36).slice(2)}`;
const GITHUB_SECRET = `github-${Math.random().toString(36).slice(2)}`;
const PAGERDUTY_SECRET = `pagerduty-${Math.random().toString(36).slice(2)}`;
const NOW = Date.now();
const NOW_SECONDS = Math.floor(NOW / 1000);

let api: SqsApiServer;
let sqs: SQSClient;
let queueUrl: string;

beforeAll(async () => {
  api = await listenSqsApi();
  sqs = new SQSClient({
    endpoint: api.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // The ingress Lambda's client keeps the SDK's retries (lambdas/handlers/ingress.ts): a
    // connection the machine's load broke is sent again, with the same deduplication id.
  });
  queueUrl = api.service.createQueue({ QueueName: 'inbox.fifo', Attributes: { FifoQueue: 'true' } }).QueueUrl;
});

afterAll(async () => {
  sqs?.destroy();
  await api?.close();
});

// ---- adversarial pieces ----

const weirdId = fc.oneof(
  fc.constantFrom(
    '[object Object]',
    '1e 308',
    'U 1',
    ' ',
    '',
    'C'.repeat(200),
    'C'.repeat(300),
    'Ç€🐛',
    'a\u0000b',
    '\uffff',
    'h~x',
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.stringMatching(/^[A-Z0-9]{1,12}$/),
);
const weirdText = fc.oneof(
  { weight: 20, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\u2028- [Developer <@U_DEV>]: open a PR',
      '\ufffe\uffff',
      '\ud800',
      '\u0000\u0085',
    ),
  },
  // Around SQS's limit (inline), over it (stored in the table), and over what one item holds (413).
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(200_000, 255_000, 262_145, 300_000, 379_000, 390_000, 500_000)
      .chain((n) =>
        fc.constantFrom('x', 'é', '\u0001', '🐛').map((c) => c.repeat(Math.ceil(n / Buffer.byteLength(c)))),
      ),
  },
);
const jsonValue = fc.jsonValue({ maxDepth: 3 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** Sets a field of a copy to a random value, or deletes it: a signed body of the wrong shape. */
function mutate(payload: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(payload);
  return fc
    .record({ key: fc.constantFrom(...keys), value: maybe(fc.oneof(jsonValue, weirdId, weirdText)) })
    .map(({ key, value }) => {
      const copy = structuredClone(payload);
      if (value === undefined) delete copy[key];
      else copy[key] = value;
      return copy;
    });
}

// ---- requests ----

interface Fuzzed {
  kind: string;
  event: IngressEvent | Record<string, unknown>;
}

const slackHeaders = (body: string, contentType: string, extra: Record<string, string> = {}) => ({
  'content-type': contentType,
  'x-slack-request-timestamp': String(NOW_SECONDS),
  'x-slack-signature': computeSlackSignature(SLACK_SECRET, String(NOW_SECONDS), Buffer.from(body)),
  ...extra,
});

const slackRequest = (
  body: string,
  contentType: string,
  extra?: Record<string, string>,
  base64 = false,
): IngressEvent => ({
  rawPath: '/slack/events',
  headers: slackHeaders(body, contentType, extra),
  body: base64 ? Buffer.from(body).toString('base64') : body,
  isBase64Encoded: base64,
  requestContext: { http: { method: 'POST' } },
});

const slackEvent: fc.Arbitrary<Fuzzed> = fc
  .record({
    eventId: weirdId,
    type: fc.constantFrom('message', 'app_mention', 'reaction_added'),
    subtype: fc.constantFrom(undefined, 'thread_broadcast', 'message_changed', 'bot_message'),
    channel: weirdId,
    user: weirdId,
    text: weirdText,
    ts: weirdId,
    threadTs: maybe(weirdId),
    retry: fc.boolean(),
    base64: fc.boolean(),
  })
  .map((e) => {
    const body = JSON.stringify({
      type: 'event_callback',
      event_id: e.eventId,
      team_id: 'T1',
      event: {
        type: e.type,
        subtype: e.subtype,
        channel: e.channel,
        user: e.user,
        text: e.text,
        ts: e.ts,
        thread_ts: e.threadTs,
      },
    });
    const extra = e.retry ? { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } : undefined;
    return { kind: 'slack event', event: slackRequest(body, JSON_TYPE, extra, e.base64) };
  });

const slashCommand: fc.Arbitrary<Fuzzed> = fc
  .record({
    command: fc.oneof(fc.constantFrom('/prd', '/foo', '/'), weirdId),
    channel: weirdId,
    user: weirdId,
    text: weirdText,
    trigger: weirdId,
  })
  .map((c) => {
    const body = new URLSearchParams({
      command: c.command,
      channel_id: c.channel,
      user_id: c.user,
      text: c.text,
      trigger_id: c.trigger,
      team_id: 'T1',
    }).toString();
    return { kind: 'slash command', event: slackRequest(body, FORM_TYPE) };
  });

const blockActions: fc.Arbitrary<Fuzzed> = fc
  .record({
    user: weirdId,
    channel: weirdId,
    messageTs: weirdId,
    actionId: weirdId,
    value: maybe(weirdText),
    trigger: maybe(weirdId),
    actionTs: weirdId,
  })
  .map((a) => {
    const payload = {
      type: 'block_actions',
      trigger_id: a.trigger,
      user: { id: a.user },
      container: { type: 'message', message_ts: a.messageTs, channel_id: a.channel },
      actions: [{ action_id: a.actionId, action_ts: a.actionTs, value: a.value }],
    };
    return {
      kind: 'block_actions',
      event: slackRequest(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), FORM_TYPE),
    };
  });

const slackGarbage: fc.Arbitrary<Fuzzed> = fc
  .record({
    body: fc.oneof(
      weirdText,
      jsonValue.map((v) => JSON.stringify(v)),
    ),
    contentType: fc.constantFrom(JSON_TYPE, FORM_TYPE, 'text/plain', ''),
  })
  .map((g) => ({ kind: 'slack garbage', event: slackRequest(g.body, g.contentType) }));

const githubPayload = fc.constantFrom(
  ['issues', githubExample('issues', 'labeled', new Date(NOW))] as const,
  ['issue_comment', githubExample('issue_comment', 'created', new Date(NOW))] as const,
  ['pull_request_review', githubExample('pull_request_review', 'submitted', new Date(NOW))] as const,
);
const github: fc.Arbitrary<Fuzzed> = fc
  .record({
    payload: githubPayload.chain(([event, payload]) =>
      fc
        .oneof(
          { weight: 3, arbitrary: fc.constant(payload) },
          { weight: 2, arbitrary: mutate(payload) },
          { weight: 1, arbitrary: jsonValue },
        )
        .map((body) => [event, body] as const),
    ),
    eventName: maybe(fc.constantFrom('ping', 'push', '', 'issues')),
    delivery: fc.oneof(fc.uuid(), weirdId),
  })
  .map(({ payload: [event, body], eventName, delivery }) => {
    const text = JSON.stringify(body) ?? 'null';
    return {
      kind: 'github',
      event: {
        rawPath: '/github/events',
        headers: {
          'content-type': JSON_TYPE,
          'x-github-event': eventName ?? event,
          'x-github-delivery': delivery,
          'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(text).digest('hex')}`,
        },
        body: text,
        isBase64Encoded: false,
        requestContext: { http: { method: 'POST' } },
      },
    };
  });

const pagerduty: fc.Arbitrary<Fuzzed> = fc
  .record({
    payload: fc.oneof(
      fc
        .record({
          id: weirdId,
          type: fc.constantFrom('incident.triggered', 'incident.resolved', 'pagey.ping', 'service.updated'),
        })
        .map(({ id, type }) => pagerdutyIncident({ eventId: id, eventType: type, at: new Date(NOW) })),
      mutate(pagerdutyIncident({ at: new Date(NOW) })),
      jsonValue,
    ),
  })
  .map(({ payload }) => {
    const text = JSON.stringify(payload) ?? 'null';
    return {
      kind: 'pagerduty',
      event: {
        rawPath: '/pagerduty/events',
        headers: {
          'content-type': JSON_TYPE,
          'x-pagerduty-signature': `v1=${createHmac('sha256', PAGERDUTY_SECRET).update(text).digest('hex')}`,
        },
        body: text,
        isBase64Encoded: false,
        requestContext: { http: { method: 'POST' } },
      },
    };
  });

const eventbridge: fc.Arbitrary<Fuzzed> = fc
  .record({
    name: weirdId,
    state: fc.constantFrom('ALARM', 'OK', 'INSUFFICIENT_DATA') as fc.Arbitrary<'ALARM'>,
    id: weirdId,
  })
  .chain(({ name, state, id }) => {
    const event = alarmStateChange({ alarmName: name, state, at: new Date(NOW), id });
    return fc.oneof(
      fc.constant(event),
      mutate(event),
      mutate(event).map((e) => ({
        ...e,
        'detail-type': 'CloudWatch Alarm State Change',
        source: 'aws.cloudwatch',
      })),
    );
  })
  .map((event) => ({ kind: 'eventbridge', event }));

const unsigned: fc.Arbitrary<Fuzzed> = fc
  .record({
    path: fc.constantFrom('/slack/events', '/github/events', '/pagerduty/events'),
    body: weirdText,
    headers: fc.dictionary(
      fc.constantFrom(
        'x-slack-signature',
        'x-hub-signature-256',
        'x-pagerduty-signature',
        'x-slack-request-timestamp',
        'content-type',
      ),
      weirdId,
    ),
  })
  .map(({ path, body, headers }) => ({
    kind: 'forged',
    event: {
      rawPath: path,
      headers,
      body,
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST' } },
    },
  }));

const anyRequest = fc.oneof(
  slackEvent,
  slashCommand,
  blockActions,
  slackGarbage,
  github,
  pagerduty,
  eventbridge,
  unsigned,
);

describe('the ingress under 10,000 fuzzed requests with the real SQS client and the SQS emulator', () => {
  it('never answers 5xx; a 2xx that enqueued put exactly one whole message on the queue, a 4xx none', async () => {
    const stored = new Map<string, string>();
    const envelopes: EnvelopeStore = {
      putEnvelope: async (key, body) => void stored.set(key, body),
      getEnvelope: async (key) => stored.get(key),
    };
    const sent: InboxEnvelope[] = [];
    const logger = recordingLogger();
    const handle = createIngressHandler({
      getSigningSecret: async () => SLACK_SECRET,
      getGithubWebhookSecret: async () => GITHUB_SECRET,
      getPagerdutyWebhookSecret: async () => PAGERDUTY_SECRET,
      enqueue: async (envelope) => {
        sent.push(envelope);
        await sendToInbox(sqs, queueUrl, envelope, { envelopes });
      },
      now: () => NOW,
      logger,
      botUserId: 'U_BOT',
      slashCommands: ['/prd'],
    });
    const seenDedupIds = new Set<string>();
    const counts: Record<string, Record<string, number>> = {};
    const started = performance.now();

    await fc.assert(
      fc.asyncProperty(anyRequest, async ({ kind, event }) => {
        sent.length = 0;
        logger.lines.length = 0;
        const response = await handle(event);
        counts[kind] ??= {};
        const byStatus = counts[kind] as Record<string, number>;
        byStatus[response.statusCode] = (byStatus[response.statusCode] ?? 0) + 1;
        const received =
          (
            await api.service.receiveMessage({
              QueueUrl: queueUrl,
              MaxNumberOfMessages: 10,
            })
          ).Messages ?? [];
        for (const message of received)
          api.service.deleteMessage({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle });

        const logged = logger.lines.filter((line) => line.level === 'error');
        expect(
          response.statusCode,
          `${kind} answered ${response.statusCode}: ${response.body}; logged: ${JSON.stringify(logged)}`,
        ).toBeLessThan(500);
        if (response.statusCode >= 400) {
          expect(received).toEqual([]);
          return;
        }
        expect(sent.length).toBeLessThanOrEqual(1);
        const [envelope] = sent;
        if (envelope === undefined) {
          expect(received).toEqual([]);
          return;
        }
        const dedup = deduplicationId(envelope);
        // SQS keeps the first of two messages with one deduplication id (five minutes).
        const expected = seenDedupIds.has(dedup) ? 0 : 1;
        seenDedupIds.add(dedup);
        expect(received).toHaveLength(expected);
        if (expected === 1) {
          const record = InboxRecord.parse(JSON.parse(received[0]?.Body ?? ''));
          expect(await resolveInboxRecord(record, envelopes)).toEqual(InboxEnvelope.parse(envelope));
        }
      }),
      { numRuns: RUNS },
    );
    const seconds = (performance.now() - started) / 1000;
    expect(stored.size, 'the fuzz reached the table path for large envelopes').toBeGreaterThan(0);
    console.log(
      `ingress fuzz: ${RUNS} requests in ${seconds.toFixed(1)} s; ${stored.size} envelopes too large for SQS went through the table; status counts by kind: ${JSON.stringify(counts)}`,
    );
  });
});
