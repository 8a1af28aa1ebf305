import { ErrorCode, LogLevel, WebClient, WebClientEvent } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createSlackPoster } from '../../lambdas/slack/web-client.ts';
import { BOT_TOKEN, client, fakeSlackForEachTest, server, slack } from './slack-fake.harness.ts';

/**
 * The fake Slack's Web API through the real `@slack/web-api` WebClient: what it records and
 * answers, its errors and rate limits as Slack's, and chat.getPermalink through the kernel's
 * poster. What it tells its subscribers is in slack-fake-events.test.ts.
 */

const SLACK_TS = /^\d{10}\.\d{6}$/;

fakeSlackForEachTest();

describe('fake Slack Web API through the real @slack/web-api WebClient', () => {
  it('answers auth.test with the bot identity', async () => {
    const result = await client.auth.test();
    expect(result).toMatchObject({ ok: true, user_id: 'U_BOT', bot_id: 'B_BOT', team_id: 'T_SANDBOX' });
  });

  it('records bot posts and user replies in ts order, top level and per thread', async () => {
    const { ts: rootTs } = slack.postAsUser({
      channel: 'C_BUG_REPORTS',
      user: 'U_REPORTER',
      text: 'Login is broken',
    });
    const reply = await client.chat.postMessage({
      channel: 'C_BUG_REPORTS',
      thread_ts: rootTs,
      text: 'Which browser?',
    });
    const { ts: answerTs } = slack.postAsUser({
      channel: 'C_BUG_REPORTS',
      user: 'U_REPORTER',
      text: 'Firefox',
      thread_ts: rootTs,
    });
    const other = await client.chat.postMessage({ channel: 'C_BUG_REPORTS', text: 'Daily summary' });

    expect(reply).toMatchObject({
      ok: true,
      channel: 'C_BUG_REPORTS',
      message: { thread_ts: rootTs, bot_id: 'B_BOT' },
    });
    const tss = [rootTs, reply.ts, answerTs, other.ts];
    for (const ts of tss) expect(ts).toMatch(SLACK_TS);
    expect([...tss].sort((a, b) => Number(a) - Number(b))).toEqual(tss);
    expect(new Set(tss).size).toBe(4);
    expect(slack.messages({ channel: 'C_BUG_REPORTS' })).toEqual([
      { ts: rootTs, user: 'U_REPORTER', text: 'Login is broken' },
      { ts: other.ts, user: 'U_BOT', bot: true, text: 'Daily summary' },
    ]);
    expect(slack.messages({ channel: 'C_BUG_REPORTS', thread_ts: rootTs })).toEqual([
      { ts: rootTs, user: 'U_REPORTER', text: 'Login is broken' },
      { ts: reply.ts, thread_ts: rootTs, user: 'U_BOT', bot: true, text: 'Which browser?' },
      { ts: answerTs, thread_ts: rootTs, user: 'U_REPORTER', text: 'Firefox' },
    ]);
  });

  it('refuses an invalid token with invalid_auth', async () => {
    const intruder = new WebClient('xoxb-wrong', {
      slackApiUrl: server.slackApiUrl,
      retryConfig: { retries: 0 },
    });

    await expect(intruder.chat.postMessage({ channel: 'C_BUG_REPORTS', text: 'hi' })).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'invalid_auth' },
    });
    expect(slack.messages({ channel: 'C_BUG_REPORTS' })).toEqual([]);
  });

  it('answers 429 with Retry-After, and WebClient retries the call after waiting', async () => {
    const retrying = new WebClient(BOT_TOKEN, {
      slackApiUrl: server.slackApiUrl,
      retryConfig: { retries: 1, factor: 1, minTimeout: 10, maxTimeout: 10 },
      rejectRateLimitedCalls: false,
      logLevel: LogLevel.ERROR,
    });
    const rateLimited: number[] = [];
    retrying.on(WebClientEvent.RATE_LIMITED, (retryAfterSeconds: number) =>
      rateLimited.push(retryAfterSeconds),
    );
    slack.rateLimit('chat.postMessage', 1, 1);

    const result = await retrying.chat.postMessage({ channel: 'C_BUG_REPORTS', text: 'eventually' });

    expect(result.ok).toBe(true);
    expect(rateLimited).toEqual([1]);
    expect(slack.apiCalls('chat.postMessage').map((call) => call.outcome)).toEqual(['rate_limited', 'ok']);
    expect(slack.messages({ channel: 'C_BUG_REPORTS' }).map((message) => message.text)).toEqual([
      'eventually',
    ]);
  });

  it('lets WebClient reject a rate-limited call when rejectRateLimitedCalls is set', async () => {
    const strict = new WebClient(BOT_TOKEN, {
      slackApiUrl: server.slackApiUrl,
      rejectRateLimitedCalls: true,
    });
    slack.rateLimit('reactions.add', 1, 7);

    await expect(
      strict.reactions.add({ channel: 'C_BUG_REPORTS', timestamp: '1.000001', name: 'eyes' }),
    ).rejects.toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7 });
  });

  it('round-trips blocks sent form-encoded as a JSON string', async () => {
    const blocks = [
      { type: 'section', text: { type: 'mrkdwn', text: '*Findings*: null pointer in `login()`' } },
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } }],
      },
    ];

    const posted = await client.chat.postMessage({ channel: 'C_DEVS', text: 'Findings', blocks });
    const history = await client.conversations.history({ channel: 'C_DEVS' });

    expect(posted.message?.blocks).toEqual(blocks);
    expect(history.messages?.[0]?.blocks).toEqual(blocks);
    expect(slack.messages({ channel: 'C_DEVS' })[0]?.blocks).toEqual(blocks);
  });

  it('lists a thread through conversations.replies with the reply summary on the root', async () => {
    const { ts: root } = slack.postAsUser({ channel: 'C_BUG_REPORTS', user: 'U_REPORTER', text: 'root' });
    await client.chat.postMessage({ channel: 'C_BUG_REPORTS', thread_ts: root, text: 'bot reply' });
    slack.postAsUser({ channel: 'C_BUG_REPORTS', user: 'U_DEV', text: 'dev reply', thread_ts: root });

    const replies = await client.conversations.replies({ channel: 'C_BUG_REPORTS', ts: root });

    expect(replies.messages?.map((message) => message.text)).toEqual(['root', 'bot reply', 'dev reply']);
    expect(replies.messages?.[0]).toMatchObject({
      thread_ts: root,
      reply_count: 2,
      reply_users: ['U_BOT', 'U_DEV'],
    });
  });

  it('pages conversations.history newest first', async () => {
    for (const text of ['one', 'two', 'three']) slack.postAsUser({ channel: 'C_DEVS', user: 'U_DEV', text });

    const first = await client.conversations.history({ channel: 'C_DEVS', limit: 2 });
    const second = await client.conversations.history({
      channel: 'C_DEVS',
      limit: 2,
      cursor: first.response_metadata?.next_cursor ?? '',
    });

    expect(first.messages?.map((message) => message.text)).toEqual(['three', 'two']);
    expect(first.has_more).toBe(true);
    expect(second.messages?.map((message) => message.text)).toEqual(['one']);
    expect(second.has_more).toBe(false);
  });

  it('shows a reply_broadcast reply in the channel as well as in its thread', async () => {
    const { ts: root } = slack.postAsUser({ channel: 'C_BUG_REPORTS', user: 'U_REPORTER', text: 'root' });
    const broadcast = await client.chat.postMessage({
      channel: 'C_BUG_REPORTS',
      thread_ts: root,
      text: 'Resolved',
      reply_broadcast: true,
    });

    expect(slack.messages({ channel: 'C_BUG_REPORTS' }).map((message) => message.ts)).toEqual([
      root,
      broadcast.ts,
    ]);
    expect(
      slack.messages({ channel: 'C_BUG_REPORTS', thread_ts: root }).map((message) => message.ts),
    ).toEqual([root, broadcast.ts]);
  });

  it('posts to a channel named with #name and answers with its id', async () => {
    const result = await client.chat.postMessage({ channel: '#bug-reports', text: 'hello' });
    expect(result.channel).toBe('C_BUG_REPORTS');
  });

  it('updates the bot message in place with chat.update', async () => {
    const posted = await client.chat.postMessage({ channel: 'C_DEVS', text: 'Investigating…' });
    const updated = await client.chat.update({ channel: 'C_DEVS', ts: posted.ts ?? '', text: 'Done' });

    expect(updated).toMatchObject({ ok: true, ts: posted.ts, text: 'Done' });
    expect(slack.messages({ channel: 'C_DEVS' })).toEqual([
      { ts: posted.ts, user: 'U_BOT', bot: true, text: 'Done' },
    ]);
  });

  it('refuses to update a message the bot did not write', async () => {
    const { ts } = slack.postAsUser({ channel: 'C_DEVS', user: 'U_DEV', text: 'mine' });
    await expect(client.chat.update({ channel: 'C_DEVS', ts, text: 'hijacked' })).rejects.toMatchObject({
      data: { error: 'cant_update_message' },
    });
  });

  it('keeps ephemeral messages out of the channel', async () => {
    const result = await client.chat.postEphemeral({ channel: 'C_DEVS', user: 'U_DEV', text: 'only you' });

    expect(result.message_ts).toMatch(SLACK_TS);
    expect(slack.ephemerals()).toEqual([
      { channel: 'C_DEVS', user: 'U_DEV', message_ts: result.message_ts, text: 'only you' },
    ]);
    expect(slack.messages({ channel: 'C_DEVS' })).toEqual([]);
  });

  it('adds a reaction once and answers already_reacted the second time', async () => {
    const { ts } = slack.postAsUser({ channel: 'C_DEVS', user: 'U_DEV', text: 'deploy done' });
    await client.reactions.add({ channel: 'C_DEVS', timestamp: ts, name: 'eyes' });

    await expect(
      client.reactions.add({ channel: 'C_DEVS', timestamp: ts, name: 'eyes' }),
    ).rejects.toMatchObject({
      data: { error: 'already_reacted' },
    });
    const history = await client.conversations.history({ channel: 'C_DEVS' });
    expect(history.messages?.[0]?.reactions).toEqual([{ name: 'eyes', users: ['U_BOT'], count: 1 }]);
  });

  it('describes channels and users', async () => {
    const channel = await client.conversations.info({ channel: 'C_BUG_REPORTS' });
    const user = await client.users.info({ user: 'U_REPORTER' });

    expect(channel.channel).toMatchObject({ id: 'C_BUG_REPORTS', name: 'bug-reports', is_channel: true });
    expect(user.user).toMatchObject({
      id: 'U_REPORTER',
      name: 'rita',
      real_name: 'Rita Reporter',
      is_bot: false,
    });
    await expect(client.users.info({ user: 'U_NOBODY' })).rejects.toMatchObject({
      data: { error: 'user_not_found' },
    });
  });

  it('answers channel_not_found and thread_not_found like Slack', async () => {
    await expect(client.chat.postMessage({ channel: 'C_NOPE', text: 'x' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    await expect(
      client.chat.postMessage({ channel: 'C_DEVS', thread_ts: '1700000000.000001', text: 'x' }),
    ).rejects.toMatchObject({ data: { error: 'thread_not_found' } });
  });

  it('answers unknown_method with HTTP 200 for a method it does not serve', async () => {
    await expect(client.apiCall('admin.users.list')).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: 'unknown_method' },
    });
  });

  it('answers not_authed when no token is sent, and accepts JSON bodies with a Bearer token', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${server.slackApiUrl}chat.postMessage`, { method: 'POST', headers, body }).then((response) =>
        response.json(),
      );

    const anonymous = await post({ 'content-type': 'application/json' }, '{"channel":"C_DEVS","text":"hi"}');
    const json = await post(
      { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${BOT_TOKEN}` },
      JSON.stringify({ channel: 'C_DEVS', text: 'hi', blocks: [{ type: 'divider' }] }),
    );

    expect(anonymous).toEqual({ ok: false, error: 'not_authed' });
    expect(json).toMatchObject({ ok: true, message: { text: 'hi', blocks: [{ type: 'divider' }] } });
  });
});

describe('chat.getPermalink in the fake Slack', () => {
  it("answers a message's permalink as the sandbox console's view of its thread, through the kernel's poster", async () => {
    const poster = createSlackPoster({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl, maxRetries: 0 });
    const root = await poster.postMessage({ channel: 'C_DEVS', text: 'Findings' });
    const reply = await poster.postMessage({ channel: 'C_DEVS', text: 'More', threadTs: root.ts });
    const origin = new URL(server.slackApiUrl).origin;

    expect(await poster.permalink(root)).toBe(`${origin}/#channel=C_DEVS&thread=${root.ts}`);
    expect(await poster.permalink(reply)).toBe(`${origin}/#channel=C_DEVS&thread=${root.ts}`);
  });

  it("answers Slack's message_not_found for a message it does not have", async () => {
    const poster = createSlackPoster({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl, maxRetries: 0 });

    await expect(poster.permalink({ channel: 'C_DEVS', ts: '1700000000.000001' })).rejects.toThrow(
      /chat\.getPermalink failed: message_not_found/,
    );
  });
});
