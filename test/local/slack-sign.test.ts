import { createHmac } from 'node:crypto';
import { isValidSlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { parseSlackRequest } from '../../lambdas/ingress/parse-slack-request.ts';
import type { SlackMessageEvent } from '../../local/slack/fake-slack.ts';
import { buildEventCallbacks, signSlackRequest } from '../../local/slack/sign.ts';

const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TIMESTAMP = 1_735_689_600;

const userMessage: SlackMessageEvent = {
  channel: 'C_BUG_REPORTS',
  ts: '1735689600.000100',
  user: 'U_REPORTER',
  text: 'Checkout fails <@U_BOT>',
};

describe('signSlackRequest', () => {
  it('signs v0:timestamp:body with HMAC-SHA256 under the signing secret', () => {
    const body = JSON.stringify({ type: 'event_callback', text: 'naïve café ✓' });

    const headers = signSlackRequest({ signingSecret: SIGNING_SECRET, body, timestamp: TIMESTAMP });

    const expected = createHmac('sha256', SIGNING_SECRET).update(`v0:${TIMESTAMP}:${body}`).digest('hex');
    expect(headers).toEqual({
      'x-slack-signature': `v0=${expected}`,
      'x-slack-request-timestamp': String(TIMESTAMP),
    });
  });

  it("produces signatures that Bolt's own verifier accepts, and only for the signed body", () => {
    const body = JSON.stringify(
      messageCallback(userMessage, { teamId: 'T1', apiAppId: 'A1', eventId: 'Ev1' }),
    );
    const headers = signSlackRequest({ signingSecret: SIGNING_SECRET, body, timestamp: TIMESTAMP });
    const verify = (candidate: string) =>
      isValidSlackRequest({
        signingSecret: SIGNING_SECRET,
        body: candidate,
        headers: {
          'x-slack-signature': headers['x-slack-signature'],
          'x-slack-request-timestamp': TIMESTAMP,
        },
        nowMilliseconds: TIMESTAMP * 1000,
      });

    expect(verify(body)).toBe(true);
    expect(verify(body.replace('Checkout', 'Checkin'))).toBe(false);
  });
});

describe('the event callback of a message', () => {
  it('wraps a message in the Events API event_callback envelope', () => {
    const body = messageCallback(
      { ...userMessage, thread_ts: '1735689500.000100' },
      { teamId: 'T_SANDBOX', apiAppId: 'A_BOT', eventId: 'Ev0001' },
    );

    expect(body).toMatchObject({
      team_id: 'T_SANDBOX',
      api_app_id: 'A_BOT',
      type: 'event_callback',
      event_id: 'Ev0001',
      event_time: 1_735_689_600,
      event: {
        type: 'message',
        channel: 'C_BUG_REPORTS',
        user: 'U_REPORTER',
        text: 'Checkout fails <@U_BOT>',
        ts: '1735689600.000100',
        thread_ts: '1735689500.000100',
        channel_type: 'channel',
        event_ts: '1735689600.000100',
      },
    });
    expect(typeof body.token).toBe('string');
  });

  it("keeps the bot's bot_id on its own messages so the ingress can ignore them", () => {
    const body = messageCallback(
      { channel: 'C_BUG_REPORTS', ts: '1735689601.000100', user: 'U_BOT', bot_id: 'B_BOT', text: 'On it' },
      { teamId: 'T_SANDBOX', apiAppId: 'A_BOT' },
    );

    expect(body.event).toMatchObject({ type: 'message', user: 'U_BOT', bot_id: 'B_BOT' });
    expect(body.event_id).toMatch(/^Ev[A-Z0-9]{10}$/);
  });
});

describe('buildEventCallbacks', () => {
  it('adds an app_mention with its own event id when a user mentions the bot', () => {
    const [message, mention, ...rest] = buildEventCallbacks(userMessage, {
      teamId: 'T_SANDBOX',
      apiAppId: 'A_BOT',
      eventId: 'Ev0001',
      botUserId: 'U_BOT',
    });

    expect(rest).toEqual([]);
    expect(message?.event.type).toBe('message');
    expect(message?.event_id).toBe('Ev0001');
    expect(mention?.event).toMatchObject({ type: 'app_mention', user: 'U_REPORTER', ts: userMessage.ts });
    expect(mention?.event).not.toHaveProperty('channel_type');
    expect(mention?.event_id).not.toBe('Ev0001');
  });

  it('sends only the message event when the bot is not mentioned', () => {
    const callbacks = buildEventCallbacks(
      { ...userMessage, text: 'no mention here' },
      { teamId: 'T_SANDBOX', apiAppId: 'A_BOT', botUserId: 'U_BOT' },
    );
    expect(callbacks.map((callback) => callback.event.type)).toEqual(['message']);
  });
});

describe('an edit, as Slack sends it', () => {
  const edited: SlackMessageEvent = {
    channel: 'C_BUG_SUMMARIES',
    ts: '1735689600.000100',
    thread_ts: '1735689500.000100',
    user: 'U_THIRD',
    text: '<@U_BOT> approved, please fix it',
    edit: { previousText: 'following this one', editor: 'U_THIRD', editedTs: '1735689700.000200' },
  };
  const options = { teamId: 'T_SANDBOX', apiAppId: 'A_BOT', eventId: 'Ev0001', botUserId: 'U_BOT' };

  it('is message_changed: hidden, the edit ts on top, the new version with `edited` and the previous one', () => {
    const [changed, mention, ...rest] = buildEventCallbacks(edited, options);
    expect(rest).toEqual([]);
    expect(changed?.event_id).toBe('Ev0001');
    expect(changed?.event).toEqual({
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: 'C_BUG_SUMMARIES',
      channel_type: 'channel',
      ts: '1735689700.000200',
      event_ts: '1735689700.000200',
      message: {
        type: 'message',
        user: 'U_THIRD',
        text: '<@U_BOT> approved, please fix it',
        ts: '1735689600.000100',
        thread_ts: '1735689500.000100',
        team: 'T_SANDBOX',
        edited: { user: 'U_THIRD', ts: '1735689700.000200' },
      },
      previous_message: {
        type: 'message',
        user: 'U_THIRD',
        text: 'following this one',
        ts: '1735689600.000100',
        thread_ts: '1735689500.000100',
        team: 'T_SANDBOX',
      },
    });
    // The edited text mentions the bot: Slack sends the mention again, with `edited`.
    expect(mention?.event).toMatchObject({
      type: 'app_mention',
      user: 'U_THIRD',
      ts: '1735689600.000100',
      edited: { user: 'U_THIRD', ts: '1735689700.000200' },
    });
  });

  it('is ignored by the ingress as an edit, both events, never routed as a message', () => {
    for (const callback of buildEventCallbacks(edited, options)) {
      const parsed = parseSlackRequest({
        body: JSON.stringify(callback),
        contentType: 'application/json',
        requestTimestamp: '1735689700',
        receivedAt: new Date(Date.UTC(2001, 0, 1)).toISOString(),
        botUserId: 'U_BOT',
      });
      expect(parsed).toMatchObject({ type: 'ignore', reason: 'edited_message' });
    }
  });

  it('sends only message_changed when the edited text does not mention the bot', () => {
    const callbacks = buildEventCallbacks({ ...edited, text: 'following this one, thanks' }, options);
    expect(callbacks.map((c) => [c.event.type, 'subtype' in c.event ? c.event.subtype : undefined])).toEqual([
      ['message', 'message_changed'],
    ]);
  });
});

/** A message's event callback: the only one `buildEventCallbacks` makes when it is no edit and no bot it knows is mentioned. */
function messageCallback(message: SlackMessageEvent, options: Parameters<typeof buildEventCallbacks>[1]) {
  const [callback, ...more] = buildEventCallbacks(message, options);
  expect(more).toEqual([]);
  if (callback === undefined) throw new Error('no event callback for the message');
  return callback;
}
