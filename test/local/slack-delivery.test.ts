import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack, type SlackMessageEvent } from '../../local/slack/fake-slack.ts';
import { until } from '../support/eventually.ts';

/**
 * The fake workspace delivers its events as Slack's Events API does: in order within a thread
 * (within a channel for top-level posts), side by side across threads. What a subscriber saw
 * is told by events (`start:` when a delivery reached it, `end:` when it returned), never by
 * time: a subscriber holds the deliveries a test names until the test lets them go.
 */

let slack: FakeSlack;
/** What the subscriber saw, in the order it saw it. */
let seen: string[];
/** The texts whose delivery is held: what the subscriber awaits, and what lets it go. */
let held: Map<string, { gate: Promise<void>; open: () => void }>;

/** Holds the delivery of the message with `text` until `release(text)`. */
function hold(text: string): void {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((done) => {
    open = done;
  });
  held.set(text, { gate, open });
}

function release(text: string): void {
  held.get(text)?.open();
}

const started = (text: string) => seen.includes(`start:${text}`);

/** The reporter posts in #bug-reports: a report, or a reply in the thread of `threadTs`. */
function report(text: string, threadTs?: string): string {
  const thread = threadTs === undefined ? {} : { thread_ts: threadTs };
  return slack.postAsUser({ channel: 'C_BUG_REPORTS', user: 'U_REPORTER', text, ...thread }).ts;
}

beforeEach(() => {
  seen = [];
  held = new Map();
  slack = new FakeSlack({
    botToken: 'xoxb-sandbox-token',
    channels: [
      { id: 'C_BUG_REPORTS', name: 'bug-reports' },
      { id: 'C_DEVS', name: 'developers' },
    ],
    users: [{ id: 'U_REPORTER', name: 'rita' }],
  });
  slack.onMessage(async (event: SlackMessageEvent) => {
    seen.push(`start:${event.text}`);
    await held.get(event.text)?.gate;
    seen.push(`end:${event.text}`);
  });
});

afterEach(async () => {
  for (const text of held.keys()) release(text);
  await slack.settled();
});

describe("the fake Slack's event delivery", () => {
  it("delivers two threads' replies side by side, and one thread's in the order posted", async () => {
    const first = report('report A');
    const second = report('report B');
    await slack.settled();
    hold('A1');
    report('A1', first);
    slack.postAsBot({ channel: 'C_BUG_REPORTS', text: 'A2', thread_ts: first });
    await until(() => started('A1'), "thread A's first reply to reach the subscriber");
    report('B1', second);

    // B1 was posted after A2, and is delivered while A1 is still held: the threads overlap.
    await until(() => seen.includes('end:B1'), "thread B's reply to be delivered");
    expect(seen).not.toContain('end:A1');
    // A2 waits for A1, its thread's earlier reply.
    expect(started('A2')).toBe(false);

    release('A1');
    await slack.settled();
    const threadA = seen.filter((entry) => entry.endsWith('A1') || entry.endsWith('A2'));
    expect(threadA).toEqual(['start:A1', 'end:A1', 'start:A2', 'end:A2']);
  });

  it("delivers a channel's top-level posts in the order posted, and other channels' beside them", async () => {
    hold('first');
    report('first');
    report('second');
    slack.postAsBot({ channel: 'C_DEVS', text: 'elsewhere' });
    await until(() => seen.includes('end:elsewhere'), "the other channel's post to be delivered");

    expect(seen).toContain('start:first');
    expect(started('second')).toBe(false);
    release('first');
    await slack.settled();
    expect(seen.filter((entry) => !entry.endsWith('elsewhere'))).toEqual([
      'start:first',
      'end:first',
      'start:second',
      'end:second',
    ]);
  });

  it('delivers a reply after its thread root, and an edit after what its thread had before it', async () => {
    hold('root');
    const root = report('root');
    const reply = report('reply', root);
    slack.editAsUser({ channel: 'C_BUG_REPORTS', ts: reply, user: 'U_REPORTER', text: 'reply, edited' });
    await until(() => started('root'), 'the root to reach the subscriber');

    expect(started('reply')).toBe(false);
    release('root');
    await slack.settled();
    expect(seen).toEqual([
      'start:root',
      'end:root',
      'start:reply',
      'end:reply',
      'start:reply, edited',
      'end:reply, edited',
    ]);
  });

  it('is settled only once every thread delivered what was posted', async () => {
    const root = report('root');
    await slack.settled();
    hold('slow');
    report('slow', root);
    slack.postAsBot({ channel: 'C_DEVS', text: 'quick' });
    let settled = false;
    const settling = slack.settled().then(() => {
      settled = true;
    });
    await until(() => seen.includes('end:quick'), 'the quick post to be delivered');

    expect(settled).toBe(false);
    release('slow');
    await settling;
    expect(seen).toContain('end:slow');
  });

  it('is settled for one message once its thread delivered it, whatever other threads still hold', async () => {
    const root = report('root');
    await slack.settled();
    hold('held elsewhere');
    slack.postAsBot({ channel: 'C_DEVS', text: 'held elsewhere' });
    const ts = report('mine', root);

    await slack.settled({ channel: 'bug-reports', ts });

    expect(seen).toContain('end:mine');
    expect(seen).not.toContain('end:held elsewhere');
  });
});
