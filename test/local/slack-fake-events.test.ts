import { describe, expect, it } from 'vitest';
import type { SlackMessageEvent } from '../../local/slack/fake-slack.ts';
import { until } from '../support/eventually.ts';
import { client, fakeSlackForEachTest, slack } from './slack-fake.harness.ts';

/**
 * What the fake Slack tells its `onMessage` subscribers (the sandbox's ingress among them): users'
 * posts and the bot's alike, a user's edit of their own message with the previous text, and a
 * channel's events one at a time in posting order.
 */

fakeSlackForEachTest();

describe('fake Slack message events', () => {
  it('tells onMessage subscribers about users posts and the bot posts alike', async () => {
    const events: SlackMessageEvent[] = [];
    slack.onMessage((event) => {
      events.push(event);
    });

    const { ts } = slack.postAsUser({ channel: 'C_BUG_REPORTS', user: 'U_REPORTER', text: 'help <@U_BOT>' });
    const reply = await client.chat.postMessage({ channel: 'C_BUG_REPORTS', thread_ts: ts, text: 'On it' });
    await slack.settled();

    expect(events).toEqual([
      { channel: 'C_BUG_REPORTS', ts, user: 'U_REPORTER', text: 'help <@U_BOT>' },
      {
        channel: 'C_BUG_REPORTS',
        ts: reply.ts,
        thread_ts: ts,
        user: 'U_BOT',
        bot_id: 'B_BOT',
        text: 'On it',
      },
    ]);
  });

  it('lets a user edit only their own message, and tells subscribers of the edit with the previous text', async () => {
    const events: SlackMessageEvent[] = [];
    slack.onMessage((event) => {
      events.push(event);
    });
    const { ts } = slack.postAsUser({ channel: 'C_BUG_REPORTS', user: 'U_REPORTER', text: 'it fails' });
    expect(() => slack.editAsUser({ channel: 'C_BUG_REPORTS', ts, user: 'U_OTHER', text: 'fix it' })).toThrow(
      'cant_update_message',
    );

    const edited = slack.editAsUser({
      channel: 'C_BUG_REPORTS',
      ts,
      user: 'U_REPORTER',
      text: 'it works now',
    });
    await slack.settled();

    expect(edited.edited?.user).toBe('U_REPORTER');
    expect(Number(edited.edited?.ts)).toBeGreaterThan(Number(ts));
    expect(slack.messages({ channel: 'C_BUG_REPORTS' }).map((m) => m.text)).toEqual(['it works now']);
    expect(events.at(-1)).toEqual({
      channel: 'C_BUG_REPORTS',
      ts,
      user: 'U_REPORTER',
      text: 'it works now',
      edit: { previousText: 'it fails', editor: 'U_REPORTER', editedTs: edited.edited?.ts },
    });
    expect(events).toHaveLength(2);
  });

  it("delivers a channel's events one at a time in posting order even to a slow subscriber", async () => {
    const delivered: string[] = [];
    let release: () => void = () => undefined;
    const slowFirst = new Promise<void>((resolve) => {
      release = resolve;
    });
    let onFirst = false;
    // The subscriber is still on the first event when the second is posted.
    slack.onMessage(async (event) => {
      if (event.text === 'first') {
        onFirst = true;
        await slowFirst;
      }
      delivered.push(event.text);
    });

    slack.postAsUser({ channel: 'C_DEVS', user: 'U_DEV', text: 'first' });
    slack.postAsUser({ channel: 'C_DEVS', user: 'U_DEV', text: 'second' });
    await until(() => onFirst, 'the first delivery to begin');
    release();
    await slack.settled();

    expect(delivered).toEqual(['first', 'second']);
  });
});
