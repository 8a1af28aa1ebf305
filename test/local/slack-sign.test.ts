import { createHmac } from 'node:crypto';
import { isValidSlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import type { SlackMessageEvent } from '../../local/slack/fake-slack.ts';
import { buildEventCallback, buildEventCallbacks, signSlackRequest } from '../../local/slack/sign.ts';

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
      buildEventCallback(userMessage, { teamId: 'T1', apiAppId: 'A1', eventId: 'Ev1' }),
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

describe('buildEventCallback', () => {
  it('wraps a message in the Events API event_callback envelope', () => {
    const body = buildEventCallback(
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
    const body = buildEventCallback(
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
