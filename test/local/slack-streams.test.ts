import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { fakeAssistantThread, fakeStreams } from '../../local/slack/streams.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

const BOT_TOKEN = 'xoxb-sandbox-token';

let slack: FakeSlack;
let server: FakeSlackServer;
let client: WebClient;
let threadTs: string;

beforeEach(async () => {
  slack = new FakeSlack({
    botToken: BOT_TOKEN,
    channels: [
      { id: 'C_BUGS', name: 'bug-reports' },
      { id: 'D_RITA', name: 'rita-dm' },
    ],
    users: [{ id: 'U_RITA', name: 'rita' }],
  });
  server = await listenFakeSlack(slack);
  client = new WebClient(BOT_TOKEN, { slackApiUrl: server.slackApiUrl, retryConfig: { retries: 0 } });
  threadTs = slack.postAsUser({ channel: 'C_BUGS', user: 'U_RITA', text: 'Checkout total is wrong' }).ts;
});

afterEach(async () => {
  await slack.settled();
  await server.close();
});

const recipient = { recipient_user_id: 'U_RITA', recipient_team_id: 'T_SANDBOX' };

async function slackError(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    return (error as { data?: { error?: string } }).data?.error;
  }
}

describe('streamed messages in the fake Slack', () => {
  it('starts, appends to and stops a stream, showing its tasks as task cards in the thread', async () => {
    const started = await client.chat.startStream({
      channel: 'C_BUGS',
      thread_ts: threadTs,
      ...recipient,
      task_display_mode: 'timeline',
      chunks: [
        { type: 'markdown_text', text: 'Working on it' },
        { type: 'task_update', id: 't1', title: 'Searching code for "total"', status: 'in_progress' },
      ],
    });
    expect(started).toMatchObject({ ok: true, channel: 'C_BUGS', ts: expect.any(String) });
    const ts = started.ts as string;
    await client.chat.appendStream({
      channel: 'C_BUGS',
      ts,
      chunks: [
        {
          type: 'task_update',
          id: 't1',
          title: 'Searching code for "total"',
          status: 'complete',
          output: '3 matches',
        },
      ],
    });
    const stopped = await client.chat.stopStream({ channel: 'C_BUGS', ts, markdown_text: 'Done' });
    expect(stopped.message?.streaming_state).toBe('completed');

    const [, reply] = slack.messages({ channel: 'C_BUGS', thread_ts: threadTs });
    expect(reply?.blocks).toEqual([
      { type: 'markdown', text: 'Working on it' },
      expect.objectContaining({ type: 'task_card', task_id: 't1', status: 'complete' }),
      { type: 'markdown', text: 'Done' },
    ]);
    expect(fakeStreams(slack).find((s) => s.channel === 'C_BUGS' && s.ts === ts)?.state).toBe('completed');
  });

  it('refuses a stream outside a DM without its recipient', async () => {
    expect(
      await slackError(
        client.chat.startStream({ channel: 'C_BUGS', thread_ts: threadTs, markdown_text: 'hi' }),
      ),
    ).toBe('missing_recipient_user_id');
    expect(
      await slackError(
        client.chat.startStream({
          channel: 'C_BUGS',
          thread_ts: threadTs,
          markdown_text: 'hi',
          recipient_user_id: 'U_RITA',
        }),
      ),
    ).toBe('missing_recipient_team_id');
    expect(slack.messages({ channel: 'C_BUGS', thread_ts: threadTs })).toHaveLength(1);
  });

  it('needs no recipient in a DM', async () => {
    const dm = slack.postAsUser({ channel: 'D_RITA', user: 'U_RITA', text: 'hello' }).ts;
    const started = await client.chat.startStream({
      channel: 'D_RITA',
      thread_ts: dm,
      markdown_text: 'On it',
    });
    expect(started.ok).toBe(true);
  });

  it.each([
    ['an unknown chunk type', { type: 'thoughts', text: 'x' }, 'invalid_chunks'],
    ['a task without an id', { type: 'task_update', title: 'Reading', status: 'complete' }, 'invalid_chunks'],
    [
      'a task with an unknown status',
      { type: 'task_update', id: 't', title: 'Reading', status: 'done' },
      'invalid_chunks',
    ],
    ['a plan without a title', { type: 'plan_update', title: '' }, 'invalid_chunks'],
    ['markdown over 12,000 characters', { type: 'markdown_text', text: 'x'.repeat(12_001) }, 'msg_too_long'],
    [
      'a blocks chunk of 51 blocks',
      { type: 'blocks', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) },
      'invalid_chunks',
    ],
  ])('refuses %s and changes nothing', async (_name, chunk, error) => {
    expect(
      await slackError(
        client.chat.startStream({
          channel: 'C_BUGS',
          thread_ts: threadTs,
          ...recipient,
          chunks: [chunk as never],
        }),
      ),
    ).toBe(error);
    expect(slack.messages({ channel: 'C_BUGS', thread_ts: threadTs })).toHaveLength(1);
  });

  it('refuses appends to a stopped stream with message_not_in_streaming_state', async () => {
    const { ts } = await client.chat.startStream({
      channel: 'C_BUGS',
      thread_ts: threadTs,
      ...recipient,
      markdown_text: 'a',
    });
    await client.chat.stopStream({ channel: 'C_BUGS', ts: ts as string });
    expect(
      await slackError(client.chat.appendStream({ channel: 'C_BUGS', ts: ts as string, markdown_text: 'b' })),
    ).toBe('message_not_in_streaming_state');
  });

  it('refuses a task display mode Slack does not know', async () => {
    expect(
      await slackError(
        client.chat.startStream({
          channel: 'C_BUGS',
          thread_ts: threadTs,
          ...recipient,
          markdown_text: 'a',
          task_display_mode: 'list',
        }),
      ),
    ).toBe('invalid_arguments');
  });
});

describe('assistant threads in the fake Slack', () => {
  it('keeps the status and its rotating loading messages of a DM thread, and clears it', async () => {
    const dm = slack.postAsUser({ channel: 'D_RITA', user: 'U_RITA', text: 'hello' }).ts;
    await client.assistant.threads.setStatus({
      channel_id: 'D_RITA',
      thread_ts: dm,
      status: 'is working on it…',
      loading_messages: ['Reading the thread…', 'Looking into it…'],
    });
    expect(fakeAssistantThread(slack, 'D_RITA', dm)).toMatchObject({
      status: 'is working on it…',
      loadingMessages: ['Reading the thread…', 'Looking into it…'],
    });
    await client.assistant.threads.setStatus({ channel_id: 'D_RITA', thread_ts: dm, status: '' });
    expect(fakeAssistantThread(slack, 'D_RITA', dm)?.statuses).toEqual(['is working on it…', '']);
  });

  it('sets suggested prompts and a title, and refuses a channel that is no assistant thread', async () => {
    const dm = slack.postAsUser({ channel: 'D_RITA', user: 'U_RITA', text: 'hello' }).ts;
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: 'D_RITA',
      thread_ts: dm,
      prompts: [{ title: 'Write a PRD', message: '/prd ' }],
    });
    await client.assistant.threads.setTitle({ channel_id: 'D_RITA', thread_ts: dm, title: 'Checkout bug' });
    expect(fakeAssistantThread(slack, 'D_RITA', dm)).toMatchObject({
      title: 'Checkout bug',
      prompts: [{ title: 'Write a PRD', message: '/prd ' }],
    });
    expect(
      await slackError(
        client.assistant.threads.setStatus({ channel_id: 'C_BUGS', thread_ts: threadTs, status: 'x' }),
      ),
    ).toBe('invalid_arguments');
  });
});

describe("Block Kit's limits in the fake Slack", () => {
  const post = (blocks: unknown[]) =>
    slackError(client.chat.postMessage({ channel: 'C_BUGS', text: 'fallback', blocks: blocks as never }));
  const button = (extra: Record<string, unknown>) => ({
    type: 'actions',
    elements: [
      { type: 'button', action_id: 'stop_turn', text: { type: 'plain_text', text: 'Stop' }, ...extra },
    ],
  });

  it('accepts the Stop button the progress message carries', async () => {
    expect(await post([button({ value: 'conversation-1', style: 'danger' })])).toBeUndefined();
  });

  it.each([
    ['51 blocks', Array.from({ length: 51 }, () => ({ type: 'divider' }))],
    [
      'a section over 3,000 characters',
      [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3_001) } }],
    ],
    [
      'a header over 150 characters',
      [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }],
    ],
    ['a button text over 75 characters', [button({ text: { type: 'plain_text', text: 'x'.repeat(76) } })]],
    ['a button value over 2,000 characters', [button({ value: 'x'.repeat(2_001) })]],
    [
      '26 elements in an actions block',
      [
        {
          type: 'actions',
          elements: Array.from({ length: 26 }, (_, i) => ({
            type: 'button',
            action_id: `a${i}`,
            text: { type: 'plain_text', text: 'x' },
          })),
        },
      ],
    ],
    [
      '6 elements in a context_actions block',
      [
        {
          type: 'context_actions',
          elements: Array.from({ length: 6 }, () => ({ type: 'icon_button', action_id: 'i' })),
        },
      ],
    ],
    [
      'a button in a context_actions block',
      [
        {
          type: 'context_actions',
          elements: [{ type: 'button', action_id: 'b', text: { type: 'plain_text', text: 'x' } }],
        },
      ],
    ],
    [
      '11 elements in a context block',
      [{ type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'x' })) }],
    ],
    [
      'a task card with an unknown status',
      [{ type: 'task_card', task_id: 't', title: 'Reading', status: 'running' }],
    ],
  ])('refuses %s with invalid_blocks and posts nothing', async (_name, blocks) => {
    expect(await post(blocks)).toBe('invalid_blocks');
    expect(slack.messages({ channel: 'C_BUGS' })).toHaveLength(1);
  });
});
