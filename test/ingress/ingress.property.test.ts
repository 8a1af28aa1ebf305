import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIngressHandler } from '../../lambdas/ingress/handle-ingress.ts';
import { computeSlackSignature } from '../../lambdas/ingress/verify-slack-request.ts';
import { InboxEnvelope } from '../../lambdas/kernel/inbox.ts';
import {
  BOT_USER_ID,
  FORM_TYPE,
  fakeInbox,
  interactivity,
  JSON_TYPE,
  NOW_MS,
  NOW_SECONDS,
  recordingLogger,
  SIGNING_SECRET,
} from './slack-requests.ts';

const RUNS = { numRuns: 300 };

function setup() {
  const inbox = fakeInbox();
  const handle = createIngressHandler({
    getSigningSecret: async () => SIGNING_SECRET,
    enqueue: inbox.enqueue,
    now: () => NOW_MS,
    logger: recordingLogger(),
    botUserId: BOT_USER_ID,
  });
  return { handle, inbox };
}

// ---- well-formed Slack requests, with what the inbox should receive for each ----

const id = fc.string({ minLength: 1, maxLength: 12 });
const userId = id.filter((user) => user !== BOT_USER_ID);
const slackTs = fc
  .tuple(fc.integer({ min: 1_000_000_000, max: 2_000_000_000 }), fc.integer({ min: 0, max: 999_999 }))
  .map(([seconds, micros]) => `${seconds}.${String(micros).padStart(6, '0')}`);
const text = fc.string({ unit: 'grapheme', maxLength: 120 });
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

interface WellFormed {
  body: string;
  contentType: string;
  expected: Partial<InboxEnvelope>;
}

const wellFormedMessage: fc.Arbitrary<WellFormed> = fc
  .record({
    eventId: id,
    type: fc.constantFrom('message', 'app_mention'),
    subtype: fc.constantFrom(undefined, 'thread_broadcast', 'file_share'),
    channel: id,
    user: userId,
    text,
    ts: slackTs,
    threadTs: optional(slackTs),
    teamId: optional(id),
  })
  .map((m) => ({
    contentType: JSON_TYPE,
    body: JSON.stringify({
      type: 'event_callback',
      event_id: m.eventId,
      team_id: m.teamId,
      event: {
        type: m.type,
        subtype: m.subtype,
        channel: m.channel,
        user: m.user,
        text: m.text,
        ts: m.ts,
        thread_ts: m.threadTs,
      },
    }),
    expected: {
      kind: 'message',
      eventId: m.eventId,
      channel: m.channel,
      user: m.user,
      text: m.text,
      ts: m.ts,
      threadTs: m.threadTs,
    },
  }));

const wellFormedCommand: fc.Arbitrary<WellFormed> = fc
  .record({
    command: fc.stringMatching(/^\/[a-z][a-z0-9_-]{0,15}$/),
    text,
    user: id,
    channel: id,
    trigger: id,
    teamId: optional(id),
  })
  .map((c) => {
    const form = new URLSearchParams({
      command: c.command,
      text: c.text,
      user_id: c.user,
      channel_id: c.channel,
      trigger_id: c.trigger,
    });
    if (c.teamId !== undefined) form.set('team_id', c.teamId);
    return {
      contentType: FORM_TYPE,
      body: form.toString(),
      expected: {
        kind: 'slash_command',
        eventId: c.trigger,
        command: c.command,
        text: c.text,
        user: c.user,
        channel: c.channel,
      },
    };
  });

const wellFormedAction: fc.Arbitrary<WellFormed> = fc
  .record({
    trigger: id,
    user: id,
    channel: id,
    messageTs: slackTs,
    threadTs: optional(slackTs),
    actionId: id,
    actionTs: slackTs,
    value: optional(fc.string()),
  })
  .map((a) => ({
    contentType: FORM_TYPE,
    body: interactivity({
      type: 'block_actions',
      trigger_id: a.trigger,
      user: { id: a.user },
      container: { type: 'message', message_ts: a.messageTs, channel_id: a.channel, thread_ts: a.threadTs },
      actions: [{ action_id: a.actionId, action_ts: a.actionTs, value: a.value }],
    }),
    expected: {
      kind: 'action',
      eventId: a.trigger,
      user: a.user,
      channel: a.channel,
      actionId: a.actionId,
      messageTs: a.messageTs,
      threadTs: a.threadTs,
      ts: a.actionTs,
      value: a.value,
    },
  }));

const wellFormed = fc.oneof(wellFormedMessage, wellFormedCommand, wellFormedAction);

// ---- anything at all, some of it nearly right ----

const jsonish = fc.oneof(fc.jsonValue({ maxDepth: 2 }), id, slackTs, fc.constant(BOT_USER_ID));
const randomEvent = fc.record(
  {
    type: fc.oneof(fc.constantFrom('message', 'app_mention', 'reaction_added'), jsonish),
    subtype: fc.oneof(fc.constantFrom('bot_message', 'thread_broadcast', 'message_changed'), jsonish),
    user: jsonish,
    bot_id: jsonish,
    channel: jsonish,
    text: jsonish,
    ts: jsonish,
    thread_ts: jsonish,
  },
  { requiredKeys: [] },
);
const randomEventsBody = fc
  .record(
    {
      type: fc.oneof(fc.constantFrom('event_callback', 'url_verification', 'app_rate_limited'), jsonish),
      event_id: jsonish,
      team_id: jsonish,
      challenge: jsonish,
      event: fc.oneof(randomEvent, jsonish),
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));
const randomPayload = fc.record(
  {
    type: fc.oneof(fc.constantFrom('block_actions', 'view_submission'), jsonish),
    trigger_id: jsonish,
    user: fc.oneof(fc.record({ id: jsonish }, { requiredKeys: [] }), jsonish),
    channel: fc.oneof(fc.record({ id: jsonish }, { requiredKeys: [] }), jsonish),
    container: fc.oneof(
      fc.record(
        {
          type: fc.oneof(fc.constantFrom('message', 'view'), jsonish),
          message_ts: jsonish,
          channel_id: jsonish,
        },
        { requiredKeys: [] },
      ),
      jsonish,
    ),
    actions: fc.oneof(
      fc.array(fc.record({ action_id: jsonish, action_ts: jsonish, value: jsonish }, { requiredKeys: [] }), {
        maxLength: 2,
      }),
      jsonish,
    ),
  },
  { requiredKeys: [] },
);
const randomForm = fc
  .dictionary(
    fc.oneof(
      fc.constantFrom('command', 'text', 'user_id', 'channel_id', 'trigger_id', 'payload', 'ssl_check'),
      fc.string(),
    ),
    fc.string({ unit: 'grapheme' }),
  )
  .map((fields) => new URLSearchParams(fields).toString());

/** Random bodies, each with the content type Slack would send it under. */
const anyBody = fc.oneof(
  fc.tuple(fc.string({ unit: 'grapheme' }), fc.constantFrom(JSON_TYPE, FORM_TYPE)),
  fc.tuple(
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.constant(JSON_TYPE),
  ),
  fc.tuple(randomEventsBody, fc.constant(JSON_TYPE)),
  fc.tuple(randomForm, fc.constant(FORM_TYPE)),
  fc.tuple(fc.oneof(randomPayload, fc.jsonValue()).map(interactivity), fc.constant(FORM_TYPE)),
  fc.tuple(
    fc.string().map((payload) => new URLSearchParams({ payload }).toString()),
    fc.constant(FORM_TYPE),
  ),
  { arbitrary: wellFormed.map((request) => [request.body, request.contentType] as const), weight: 3 },
);
const anyContentType = fc.oneof(
  fc.constantFrom(
    JSON_TYPE,
    FORM_TYPE,
    'application/json; charset=utf-8',
    'text/plain',
    'multipart/form-data',
    '',
  ),
  fc.string(),
  fc.constant(undefined),
);
const Signing = ['valid', 'wrong_secret', 'garbage', 'no_signature', 'no_timestamp'] as const;

const anyRequest = fc
  .record({
    body: anyBody,
    otherContentType: fc.option(anyContentType, { freq: 4 }),
    signing: fc.oneof({ arbitrary: fc.constant('valid' as const), weight: 4 }, fc.constantFrom(...Signing)),
    skewSeconds: fc.oneof(
      { arbitrary: fc.integer({ min: -300, max: 300 }), weight: 4 },
      fc.integer({ min: -100_000, max: 100_000 }),
    ),
    base64: fc.boolean(),
    extraHeaders: fc.dictionary(
      fc.oneof(fc.constantFrom('x-slack-retry-num', 'x-slack-retry-reason', 'content-length'), fc.string()),
      fc.string(),
      { maxKeys: 3 },
    ),
  })
  .map(({ body: [body, naturalContentType], otherContentType, ...rest }) => ({
    ...rest,
    body,
    // Mostly the content type that fits the body; sometimes any other, or none.
    contentType: otherContentType === null ? naturalContentType : otherContentType,
  }));

type AnyRequest = typeof anyRequest extends fc.Arbitrary<infer T> ? T : never;

function deliver(request: AnyRequest) {
  const timestamp = String(NOW_SECONDS + request.skewSeconds);
  const secret = request.signing === 'wrong_secret' ? 'another-secret' : SIGNING_SECRET;
  const signature =
    request.signing === 'garbage'
      ? `v0=${'0'.repeat(64)}`
      : computeSlackSignature(secret, timestamp, request.body);
  const headers: Record<string, string> = { ...request.extraHeaders };
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  if (request.signing !== 'no_timestamp') headers['x-slack-request-timestamp'] = timestamp;
  if (request.signing !== 'no_signature') headers['x-slack-signature'] = signature;
  return {
    headers,
    body: request.base64 ? Buffer.from(request.body).toString('base64') : request.body,
    isBase64Encoded: request.base64,
    requestContext: { http: { method: 'POST' } },
  };
}

/** Signed with our secret, within five minutes, and the signing headers not overwritten by noise. */
function verifiable(request: AnyRequest): boolean {
  const overwritten = Object.keys(request.extraHeaders).some((name) =>
    ['x-slack-request-timestamp', 'x-slack-signature'].includes(name.toLowerCase()),
  );
  return request.signing === 'valid' && Math.abs(request.skewSeconds) <= 300 && !overwritten;
}

describe('ingress properties', () => {
  it('never answers 5xx, and enqueues only validly signed, valid envelopes, at most once', async () => {
    await fc.assert(
      fc.asyncProperty(anyRequest, async (request) => {
        const { handle, inbox } = setup();

        const response = await handle(deliver(request));

        expect(response.statusCode).toBeLessThan(500);
        expect(inbox.sent.length).toBeLessThanOrEqual(1);
        if (!verifiable(request)) {
          expect(response.statusCode).toBe(401);
          expect(inbox.sent).toEqual([]);
        }
        for (const { envelope } of inbox.sent) expect(InboxEnvelope.safeParse(envelope).success).toBe(true);
      }),
      RUNS,
    );
  });

  it('enqueues every validly signed, well-formed request exactly once, as sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        wellFormed,
        fc.integer({ min: -300, max: 300 }),
        fc.boolean(),
        optional(fc.constantFrom('1', '2', '3')),
        async (request, skewSeconds, base64, retryNum) => {
          const { handle, inbox } = setup();
          const delivered = deliver({
            body: request.body,
            contentType: request.contentType,
            signing: 'valid',
            skewSeconds,
            base64,
            extraHeaders: retryNum === undefined ? {} : { 'x-slack-retry-num': retryNum },
          });

          const response = await handle(delivered);

          expect(response.statusCode).toBe(200);
          expect(inbox.sent).toHaveLength(1);
          const expected = Object.fromEntries(
            Object.entries(request.expected).filter(([, v]) => v !== undefined),
          );
          expect(inbox.sent[0]?.envelope).toMatchObject(expected);
        },
      ),
      RUNS,
    );
  });
});
