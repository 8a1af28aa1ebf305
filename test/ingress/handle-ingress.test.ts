import { describe, expect, it } from 'vitest';
import { createIngressHandler } from '../../lambdas/ingress/handle-ingress.ts';
import { computeSlackSignature } from '../../lambdas/ingress/verify-slack-request.ts';
import {
  BOT_USER_ID,
  blockActionsPayload,
  FORM_TYPE,
  fakeInbox,
  interactivity,
  JSON_TYPE,
  messageEvent,
  NOW_MS,
  NOW_SECONDS,
  recordingLogger,
  SIGNING_SECRET,
  signedRequest,
  slashCommand,
  unsignedRequest,
} from './slack-requests.ts';

/** What the ingress handler is built from. */
type IngressDependencies = Parameters<typeof createIngressHandler>[0];

function setup(overrides: Partial<IngressDependencies> = {}) {
  const inbox = fakeInbox();
  const logger = recordingLogger();
  const handle = createIngressHandler({
    getSigningSecret: async () => SIGNING_SECRET,
    enqueue: inbox.enqueue,
    now: () => NOW_MS,
    logger,
    botUserId: BOT_USER_ID,
    ...overrides,
  });
  return { handle, inbox, logger };
}

describe('Events API messages', () => {
  it('enqueues a user message grouped by its thread and deduplicated by the Slack event id', async () => {
    const { handle, inbox } = setup();

    const response = await handle(signedRequest({ body: messageEvent(), contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([
      {
        envelope: {
          kind: 'message',
          eventId: 'Ev0001',
          teamId: 'T0001',
          channel: 'C0001',
          user: 'U0001',
          receivedAt: '2025-01-01T00:00:00.000Z',
          text: 'the export job fails with a 502',
          ts: '1735689600.000100',
          mentionsBot: false,
        },
        groupId: 'C0001:1735689600.000100',
        dedupId: 'Ev0001',
      },
    ]);
  });

  it('groups a thread reply under the thread root', async () => {
    const { handle, inbox } = setup();

    await handle(
      signedRequest({
        body: messageEvent({ ts: '1735689650.000300', thread_ts: '1735689600.000100' }),
        contentType: JSON_TYPE,
      }),
    );

    expect(inbox.sent[0]?.groupId).toBe('C0001:1735689600.000100');
    expect(inbox.sent[0]?.envelope).toMatchObject({ ts: '1735689650.000300', threadTs: '1735689600.000100' });
  });

  it('marks an app_mention as mentioning the bot', async () => {
    const { handle, inbox } = setup();

    await handle(
      signedRequest({
        body: messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}> summarise this` }),
        contentType: JSON_TYPE,
      }),
    );

    expect(inbox.sent[0]?.envelope).toMatchObject({ kind: 'message', mentionsBot: true });
  });

  it('marks a plain message that names the bot as mentioning it', async () => {
    const { handle, inbox } = setup();

    await handle(
      signedRequest({
        body: messageEvent({ text: `hey <@${BOT_USER_ID}> any news?` }),
        contentType: JSON_TYPE,
      }),
    );

    expect(inbox.sent[0]?.envelope).toMatchObject({ mentionsBot: true });
  });

  it.each(['thread_broadcast', 'file_share'])('enqueues a message with subtype %s', async (subtype) => {
    const { handle, inbox } = setup();

    const response = await handle(signedRequest({ body: messageEvent({ subtype }), contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toHaveLength(1);
  });

  it('accepts a content type with a charset parameter', async () => {
    const { handle, inbox } = setup();

    await handle(signedRequest({ body: messageEvent(), contentType: 'application/json; charset=utf-8' }));

    expect(inbox.sent).toHaveLength(1);
  });

  it('reads header names in any case, for callers other than Function URLs', async () => {
    const { handle, inbox } = setup();
    const request = signedRequest({ body: messageEvent(), contentType: JSON_TYPE });
    const headers = Object.fromEntries(
      Object.entries(request.headers ?? {}).map(([name, value]) => [name.toUpperCase(), value]),
    );

    const response = await handle({ ...request, headers });

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toHaveLength(1);
  });
});

describe('url_verification', () => {
  it('echoes the challenge of a signed url_verification', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify({
      token: 't',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });

    const response = await handle(signedRequest({ body, contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(JSON.parse(response.body)).toEqual({
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
    expect(inbox.sent).toEqual([]);
  });

  it('refuses an unsigned url_verification', async () => {
    const { handle } = setup();
    const body = JSON.stringify({ challenge: 'c', type: 'url_verification' });

    const response = await handle(unsignedRequest({ body, contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(401);
    expect(response.body).not.toContain('c"');
  });
});

describe('requests that are not verifiably from Slack', () => {
  const body = messageEvent();

  it.each([
    [
      'a signature made with another secret',
      signedRequest({ body, contentType: JSON_TYPE, secret: 'not-the-secret' }),
    ],
    [
      'a forged signature',
      signedRequest({
        body,
        contentType: JSON_TYPE,
        headers: { 'x-slack-signature': `v0=${'ab'.repeat(32)}` },
      }),
    ],
    [
      'a signature of another version',
      signedRequest({ body, contentType: JSON_TYPE, headers: { 'x-slack-signature': 'v1=abc' } }),
    ],
    [
      'a timestamp older than five minutes',
      signedRequest({ body, contentType: JSON_TYPE, timestamp: NOW_SECONDS - 301 }),
    ],
    [
      'a timestamp more than five minutes ahead',
      signedRequest({ body, contentType: JSON_TYPE, timestamp: NOW_SECONDS + 301 }),
    ],
    [
      'a timestamp that is not a number',
      signedRequest({ body, contentType: JSON_TYPE, timestamp: '17356896OO' }),
    ],
    [
      'no signature header',
      unsignedRequest({
        body,
        contentType: JSON_TYPE,
        headers: { 'x-slack-request-timestamp': `${NOW_SECONDS}` },
      }),
    ],
    ['no headers at all', { body, requestContext: { http: { method: 'POST' } } }],
  ])('answers 401 and enqueues nothing for %s', async (_name, request) => {
    const { handle, inbox } = setup();

    const response = await handle(request);

    expect(response.statusCode).toBe(401);
    expect(inbox.sent).toEqual([]);
  });

  it('answers 401 when the body was changed after signing', async () => {
    const { handle, inbox } = setup();
    const request = signedRequest({ body, contentType: JSON_TYPE });

    const response = await handle({ ...request, body: body.replace('502', '503') });

    expect(response.statusCode).toBe(401);
    expect(inbox.sent).toEqual([]);
  });

  it('answers 401 when the timestamp header was changed after signing', async () => {
    const { handle, inbox } = setup();
    const request = signedRequest({ body, contentType: JSON_TYPE });

    const response = await handle({
      ...request,
      headers: { ...request.headers, 'x-slack-request-timestamp': String(NOW_SECONDS - 1) },
    });

    expect(response.statusCode).toBe(401);
    expect(inbox.sent).toEqual([]);
  });

  it('accepts a timestamp just inside the five-minute window on either side', async () => {
    const { handle, inbox } = setup();

    const old = await handle(signedRequest({ body, contentType: JSON_TYPE, timestamp: NOW_SECONDS - 300 }));
    const ahead = await handle(signedRequest({ body, contentType: JSON_TYPE, timestamp: NOW_SECONDS + 300 }));

    expect([old.statusCode, ahead.statusCode]).toEqual([200, 200]);
    expect(inbox.sent).toHaveLength(2);
  });

  it('logs why it refused, but neither the signature nor the secret', async () => {
    const { handle, logger } = setup();
    const request = signedRequest({ body, contentType: JSON_TYPE, secret: 'not-the-secret' });

    await handle(request);

    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message: 'rejected an unverified request',
        attributes: { source: 'slack', reason: 'signature_mismatch' },
      },
    ]);
    const logged = JSON.stringify(logger.lines);
    expect(logged).not.toContain(request.headers?.['x-slack-signature']);
    expect(logged).not.toContain(SIGNING_SECRET);
  });
});

describe('signed requests that cannot be read', () => {
  it.each([
    ['a body that is not JSON', '{"type":"event_callback",', JSON_TYPE],
    ['a JSON body that is not an object', '42', JSON_TYPE],
    ['an event_callback without event_id', messageEvent({}, { event_id: undefined }), JSON_TYPE],
    ['a message without channel', messageEvent({ channel: undefined }), JSON_TYPE],
    ['a message without user', messageEvent({ user: undefined }), JSON_TYPE],
    ['a message with a numeric ts', messageEvent({ ts: 1735689600.0001 }), JSON_TYPE],
    ['an unsupported content type', messageEvent(), 'text/plain'],
    ['no content type', messageEvent(), undefined],
    ['a form with neither command nor payload', 'foo=bar', FORM_TYPE],
    ['a slash command without trigger_id', slashCommand({ trigger_id: '' }), FORM_TYPE],
    ['an interactivity payload that is not JSON', 'payload=%7Bnope', FORM_TYPE],
    [
      'a block_actions payload without actions',
      interactivity(blockActionsPayload({ actions: [] })),
      FORM_TYPE,
    ],
  ])('answers 400 and enqueues nothing for %s', async (_name, body, contentType) => {
    const { handle, inbox } = setup();

    const response = await handle(signedRequest({ body, contentType }));

    expect(response.statusCode).toBe(400);
    expect(response.headers['x-slack-no-retry']).toBe('1');
    expect(inbox.sent).toEqual([]);
  });

  it('answers 400 for a base64 body that is not UTF-8', async () => {
    const { handle, inbox } = setup();
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const timestamp = String(NOW_SECONDS);

    const response = await handle({
      headers: {
        'content-type': JSON_TYPE,
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': computeSlackSignature(SIGNING_SECRET, timestamp, bytes),
      },
      body: bytes.toString('base64'),
      isBase64Encoded: true,
      requestContext: { http: { method: 'POST' } },
    });

    expect(response.statusCode).toBe(400);
    expect(inbox.sent).toEqual([]);
  });

  it('answers 401 before 400: an unsigned malformed body is unauthorised', async () => {
    const { handle } = setup();

    const response = await handle(unsignedRequest({ body: '{nope', contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(401);
  });
});

describe('Slack retries', () => {
  it('enqueues a retried delivery with the same deduplication id as the first, so SQS keeps one', async () => {
    const { handle, inbox, logger } = setup();
    const body = messageEvent();

    await handle(signedRequest({ body, contentType: JSON_TYPE }));
    const retry = await handle(
      signedRequest({
        body,
        contentType: JSON_TYPE,
        timestamp: NOW_SECONDS + 60,
        headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
      }),
    );

    expect(retry.statusCode).toBe(200);
    expect(inbox.sent.map((sent) => sent.dedupId)).toEqual(['Ev0001', 'Ev0001']);
    expect(inbox.sent[1]?.groupId).toBe(inbox.sent[0]?.groupId);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        message: 'a retried delivery',
        attributes: expect.objectContaining({
          eventId: 'Ev0001',
          retryNum: '1',
          retryReason: 'http_timeout',
        }),
      }),
    );
  });
});

describe('messages the bot does not route', () => {
  it.each([
    ['its own message', { user: BOT_USER_ID, bot_id: 'B0001' }, 'own_message'],
    ['its own message without bot_id', { user: BOT_USER_ID }, 'own_message'],
    ['another bot', { user: undefined, bot_id: 'B0002', subtype: 'bot_message' }, 'bot_message'],
    ['an app posting as a user', { bot_id: 'B0003' }, 'bot_message'],
    [
      'an edit',
      {
        subtype: 'message_changed',
        user: undefined,
        message: { type: 'message', user: 'U0001', text: 'approve, and fix it', edited: { user: 'U0001' } },
      },
      'edited_message',
    ],
    // Slack sends app_mention again when a message is edited, with `edited`: a mention added by
    // an edit, or a fix request edited into an old message, is not a new message.
    [
      'the mention Slack sends again for an edited message',
      {
        type: 'app_mention',
        text: `<@${BOT_USER_ID}> fix it`,
        edited: { user: 'U0001', ts: '1735689700.000000' },
      },
      'edited_message',
    ],
    [
      'a message event carrying `edited`',
      { edited: { user: 'U0001', ts: '1735689700.000000' } },
      'edited_message',
    ],
    ['a deletion', { subtype: 'message_deleted', user: undefined }, 'message_subtype'],
    ['a channel join', { subtype: 'channel_join' }, 'message_subtype'],
  ])('ignores %s with 200 and a logged reason', async (_name, event, reason) => {
    const { handle, inbox, logger } = setup();

    const response = await handle(signedRequest({ body: messageEvent(event), contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        message: 'ignored a request',
        attributes: expect.objectContaining({ reason }),
      }),
    );
  });

  it('ignores event types it does not route', async () => {
    const { handle, inbox } = setup();
    const body = messageEvent({ type: 'reaction_added', reaction: 'eyes', item: { ts: '1' } });

    const response = await handle(signedRequest({ body, contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
  });

  it('ignores Events API envelopes other than event_callback', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify({ type: 'app_rate_limited', team_id: 'T0001', minute_rate_limited: 1 });

    const response = await handle(signedRequest({ body, contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
  });
});

describe('slash commands', () => {
  it('enqueues a slash command with the trigger id as event id and acknowledges it ephemerally', async () => {
    const { handle, inbox } = setup();

    const response = await handle(signedRequest({ body: slashCommand(), contentType: FORM_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      response_type: 'ephemeral',
      text: 'Got it: /prd is on its way.',
    });
    expect(inbox.sent).toHaveLength(1);
    const [sent] = inbox.sent;
    expect(sent?.envelope).toEqual({
      kind: 'slash_command',
      eventId: '13345224609.738474920.8088930838d88f008e0',
      teamId: 'T0001',
      channel: 'C0001',
      user: 'U0001',
      receivedAt: '2025-01-01T00:00:00.000Z',
      command: '/prd',
      text: 'a dark mode for the dashboard',
      ts: expect.stringMatching(new RegExp(`^${NOW_SECONDS}\\.\\d{6}$`)),
      responseUrl: 'https://hooks.slack.com/commands/T0001/1/abc',
    });
    expect(sent?.groupId).toBe('C0001:/prd:U0001');
    expect(sent?.dedupId).toBe('13345224609.738474920.8088930838d88f008e0');
  });

  it('gives two commands in the same second different synthetic ts', async () => {
    const { handle, inbox } = setup();

    await handle(signedRequest({ body: slashCommand({ trigger_id: 'trigger-1' }), contentType: FORM_TYPE }));
    await handle(signedRequest({ body: slashCommand({ trigger_id: 'trigger-2' }), contentType: FORM_TYPE }));

    const [first, second] = inbox.sent.map((sent) => sent.envelope.ts);
    expect(first).not.toBe(second);
  });

  it('accepts a command with no text', async () => {
    const { handle, inbox } = setup();
    const form = new URLSearchParams(slashCommand());
    form.delete('text');

    await handle(signedRequest({ body: form.toString(), contentType: FORM_TYPE }));

    expect(inbox.sent[0]?.envelope).toMatchObject({ kind: 'slash_command', text: '' });
  });

  it('ignores a signed ssl_check', async () => {
    const { handle, inbox } = setup();

    const response = await handle(signedRequest({ body: 'ssl_check=1&token=t', contentType: FORM_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
  });
});

describe('interactivity', () => {
  it('enqueues a button click as an action on the message holding the button', async () => {
    const { handle, inbox } = setup();

    const response = await handle(
      signedRequest({ body: interactivity(blockActionsPayload()), contentType: FORM_TYPE }),
    );

    expect(response).toMatchObject({ statusCode: 200, body: '' });
    expect(inbox.sent).toEqual([
      {
        envelope: {
          kind: 'action',
          eventId: '12466734323.1395872398.e0d23b5b4b4e1c3f2b38a05ab2e5f0a1',
          teamId: 'T0001',
          channel: 'C0001',
          user: 'U0002',
          receivedAt: '2025-01-01T00:00:00.000Z',
          actionId: 'approve',
          value: 'step-3',
          messageTs: '1735689700.000200',
          threadTs: '1735689600.000100',
          ts: '1735689710.123456',
        },
        groupId: 'C0001:1735689600.000100',
        dedupId: '12466734323.1395872398.e0d23b5b4b4e1c3f2b38a05ab2e5f0a1',
      },
    ]);
  });

  it('takes the channel from the container and the thread from the message when the payload lacks them', async () => {
    const { handle, inbox } = setup();
    const payload = blockActionsPayload({
      channel: undefined,
      container: { type: 'message', message_ts: '1735689700.000200', channel_id: 'C0009' },
    });

    await handle(signedRequest({ body: interactivity(payload), contentType: FORM_TYPE }));

    expect(inbox.sent[0]?.envelope).toMatchObject({ channel: 'C0009', threadTs: '1735689600.000100' });
  });

  it('groups a click on a top-level message under that message', async () => {
    const { handle, inbox } = setup();
    const payload = blockActionsPayload({
      container: { type: 'message', message_ts: '1735689700.000200', channel_id: 'C0001' },
      message: { type: 'message', ts: '1735689700.000200' },
    });

    await handle(signedRequest({ body: interactivity(payload), contentType: FORM_TYPE }));

    expect(inbox.sent[0]?.groupId).toBe('C0001:1735689700.000200');
    expect(inbox.sent[0]?.envelope).not.toHaveProperty('threadTs');
  });

  it('routes only the first action of a payload that carries several', async () => {
    const { handle, inbox } = setup();
    const [first] = blockActionsPayload().actions as unknown[];
    const payload = blockActionsPayload({
      actions: [first, { action_id: 'reject', action_ts: '1735689711.000001', value: 'step-3' }],
    });

    await handle(signedRequest({ body: interactivity(payload), contentType: FORM_TYPE }));

    expect(inbox.sent.map((sent) => sent.envelope)).toEqual([
      expect.objectContaining({ actionId: 'approve' }),
    ]);
  });

  it('ignores a button in a modal', async () => {
    const { handle, inbox } = setup();
    const payload = blockActionsPayload({ channel: undefined, container: { type: 'view', view_id: 'V1' } });

    const response = await handle(signedRequest({ body: interactivity(payload), contentType: FORM_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
  });

  it('ignores payload types other than block_actions', async () => {
    const { handle, inbox } = setup();
    const payload = { type: 'view_submission', user: { id: 'U0001' }, view: { id: 'V1' } };

    const response = await handle(signedRequest({ body: interactivity(payload), contentType: FORM_TYPE }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
  });
});

describe('base64 bodies', () => {
  it('verifies and reads a base64-encoded body by its bytes, non-ASCII text included', async () => {
    const { handle, inbox } = setup();
    const text = 'Über-wichtig: der Export schlägt fehl 🔥';

    const response = await handle(
      signedRequest({ body: messageEvent({ text }), contentType: JSON_TYPE, base64: true }),
    );

    expect(response.statusCode).toBe(200);
    expect(inbox.sent[0]?.envelope).toMatchObject({ text });
  });

  it('reads a base64-encoded slash command form', async () => {
    const { handle, inbox } = setup();

    await handle(
      signedRequest({ body: slashCommand({ text: 'naïve café' }), contentType: FORM_TYPE, base64: true }),
    );

    expect(inbox.sent[0]?.envelope).toMatchObject({ kind: 'slash_command', text: 'naïve café' });
  });
});

describe('failures behind the door', () => {
  it('answers 500 when the inbox rejects the message, so that Slack retries', async () => {
    const logger = recordingLogger();
    const inbox = fakeInbox({ fail: Object.assign(new Error('throttled'), { name: 'InboxEnqueueError' }) });
    const { handle } = setup({ enqueue: inbox.enqueue, logger });

    const response = await handle(signedRequest({ body: messageEvent(), contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(500);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        attributes: expect.objectContaining({
          eventId: 'Ev0001',
          error: expect.objectContaining({ name: 'InboxEnqueueError' }),
        }),
      }),
    );
  });

  it('answers 500 when the signing secret cannot be read', async () => {
    const { handle, inbox } = setup({
      getSigningSecret: async () => {
        throw new Error('AccessDenied');
      },
    });

    const response = await handle(signedRequest({ body: messageEvent(), contentType: JSON_TYPE }));

    expect(response.statusCode).toBe(500);
    expect(inbox.sent).toEqual([]);
  });

  it('answers 405 to anything but POST', async () => {
    const { handle, inbox } = setup();

    const response = await handle(
      signedRequest({ body: messageEvent(), contentType: JSON_TYPE, method: 'GET' }),
    );

    expect(response.statusCode).toBe(405);
    expect(inbox.sent).toEqual([]);
  });
});

describe('logging', () => {
  it('logs ids of an accepted message, never its text, the signature or the secret', async () => {
    const { handle, logger } = setup();
    const request = signedRequest({ body: messageEvent(), contentType: JSON_TYPE });

    await handle(request);

    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: 'enqueued',
        attributes: {
          source: 'slack',
          kind: 'message',
          eventId: 'Ev0001',
          channel: 'C0001',
          ts: '1735689600.000100',
        },
      },
    ]);
    const logged = JSON.stringify(logger.lines);
    expect(logged).not.toContain('export job');
    expect(logged).not.toContain(request.headers?.['x-slack-signature']);
    expect(logged).not.toContain(SIGNING_SECRET);
  });
});

describe('slash command help at the door', () => {
  const usage = [
    { command: '/prd', description: 'Start a requirements interview', usageHint: '<product idea>' },
    {
      command: '/fix',
      usageHint: '<issue URL or number>',
      names: {
        names: [{ anchor: 'github_issue' as const, repository: 'acme/shop' }],
        refusal: 'names no issue of acme/shop',
        help: 'The issue is one of acme/shop: its number (`42`, `#42`) or its URL.',
        anchored: true,
        once: true,
      },
    },
  ];

  it('answers `/prd help` ephemerally with its usage and enqueues nothing', async () => {
    const { handle, inbox } = setup({ slashCommands: ['/prd', '/fix'], slashCommandUsage: usage });

    const response = await handle(
      signedRequest({ body: slashCommand({ text: 'help' }), contentType: FORM_TYPE }),
    );

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      response_type: 'ephemeral',
      text: '*/prd*: Start a requirements interview\nUsage: `/prd &lt;product idea&gt;`\n`/prd help` shows this help.',
    });
    expect(inbox.sent).toEqual([]);
  });

  it('answers `/fix` with no argument with its usage instead of "on its way"', async () => {
    const { handle, inbox, logger } = setup({ slashCommands: ['/prd', '/fix'], slashCommandUsage: usage });

    const response = await handle(
      signedRequest({ body: slashCommand({ command: '/fix', text: '' }), contentType: FORM_TYPE }),
    );

    const answer = JSON.parse(response.body) as { response_type: string; text: string };
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toMatch(/^\/fix needs &lt;issue URL or number&gt;\.\n/);
    expect(answer.text).not.toContain('on its way');
    expect(inbox.sent).toEqual([]);
    expect(JSON.stringify(logger.lines)).toContain('slash_command_missing_argument');
  });

  it('passes a command it can run on to the inbox with the usual acknowledgement', async () => {
    const { handle, inbox } = setup({ slashCommands: ['/prd', '/fix'], slashCommandUsage: usage });

    const response = await handle(
      signedRequest({ body: slashCommand({ command: '/fix', text: '#42' }), contentType: FORM_TYPE }),
    );

    expect(JSON.parse(response.body).text).toBe('Got it: /fix is on its way.');
    expect(inbox.sent).toHaveLength(1);
  });
});
