import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProgressRecord } from '../../lambdas/progress/ports.ts';
import {
  removeReplacedTimeline,
  timelineSummary,
  timelineToReplace,
} from '../../lambdas/progress/replaced-timeline.ts';
import { type TurnEnd, TurnProgress, type TurnProgressDeps } from '../../lambdas/progress/turn-progress.ts';
import { createProgressClient } from '../../lambdas/slack/progress-client.ts';
import { MemoryProgressStore } from '../../local/progress/memory-progress-store.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

/** What Slack shows in place of a deleted message that has replies (stated here, not imported: the value is what this test checks). */
const DELETED_TEXT = 'This message was deleted.';

/** The steps a replaced timeline's summary lists (stated here, not imported: the value is what this test checks). */
const SUMMARY_STEPS = 8;

/**
 * One message per turn: the workflow's next post in the thread of a closed timeline takes its
 * place (a new reply opening with the timeline's summary), and the timeline's message goes.
 */

const BOT_TOKEN = 'xoxb-sandbox-token';
let slack: FakeSlack;
let server: FakeSlackServer;
let threadTs: string;
let store: MemoryProgressStore;
let warnings: string[];

beforeEach(async () => {
  slack = new FakeSlack({ botToken: BOT_TOKEN, channels: [{ id: 'C_BUGS', name: 'bug-reports' }] });
  server = await listenFakeSlack(slack);
  threadTs = slack.postAsUser({ channel: 'C_BUGS', user: 'U_RITA', text: 'Checkout total is wrong' }).ts;
  store = new MemoryProgressStore();
  warnings = [];
});
afterEach(async () => {
  await slack.settled();
  await server.close();
});

function deps(): TurnProgressDeps {
  return {
    slack: createProgressClient({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl }),
    store,
    posts: { find: async () => undefined, record: async () => {} },
    clock: { now: () => new Date() },
    logger: { info: () => {}, warn: (message) => void warnings.push(message), error: () => {} },
    pacing: { intervalMs: 0 },
    showAfterMs: 0,
  };
}

const search = { id: 'toolu_1', name: 'search_code', input: { pattern: 'total' } };

/** A turn that searched the code and ended as `end` says (`continues` leaves its timeline open). */
async function turnWithTimeline(end: TurnEnd = { kind: 'done' }): Promise<void> {
  const progress = new TurnProgress(
    { conversationId: 'conv-1', turn: 1, channel: 'C_BUGS', threadTs, assistantThread: false },
    deps(),
  );
  progress.begin();
  progress.toolStarted(search);
  progress.toolFinished(search, { output: '3 matches in 2 files', failed: false });
  await progress.finish(end);
}

/** The messages the fake Slack deleted: the ts of each `chat.delete` it answered ok, in order. */
const deletedTs = () =>
  slack
    .apiCalls('chat.delete')
    .filter((call) => call.outcome === 'ok')
    .map((call) => call.args.ts);

const botReplies = () => slack.messages({ channel: 'C_BUGS', thread_ts: threadTs }).filter((m) => m.bot);

describe('a post in the thread of a closed timeline', () => {
  it('takes its place: the summary names the closing line and each step, and the message is deleted', async () => {
    await turnWithTimeline();
    const record = await timelineToReplace('conv-1', { channel: 'C_BUGS', threadTs }, store);
    expect(record).toBeDefined();
    const summary = timelineSummary(record as ProgressRecord);
    expect(summary).toMatch(/^:white_check_mark: Done: 1 step in \d+ s\n/);
    expect(summary).toContain(':white_check_mark: Searching code for "total" — 3 matches in 2 files');

    const answer = slack.postAsBot({ channel: 'C_BUGS', text: 'Which browser?', thread_ts: threadTs });
    await removeReplacedTimeline('conv-1', record as ProgressRecord, answer.ts, deps());

    expect(botReplies().map((m) => m.text)).toEqual(['Which browser?']);
    expect(deletedTs()).toEqual([record?.ts]);
    expect(store.records.get('conv-1')?.replacedBy).toBe(answer.ts);
    // Replaced once: the next post in the thread finds nothing to replace.
    expect(await timelineToReplace('conv-1', { channel: 'C_BUGS', threadTs }, store)).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('takes the timeline as just read when given, without reading it again', async () => {
    await turnWithTimeline();
    const read = { record: store.records.get('conv-1') };
    const unread = { load: () => Promise.reject(new Error('read again')) };
    const record = await timelineToReplace('conv-1', { channel: 'C_BUGS', threadTs }, unread, read);
    expect(record?.ts).toBe(read.record?.ts);
    // Nothing read (no timeline): nothing to replace, and still no read.
    expect(
      await timelineToReplace('conv-1', { channel: 'C_BUGS', threadTs }, unread, { record: undefined }),
    ).toBeUndefined();
  });

  it('counts a message already gone as deleted (a retried post)', async () => {
    await turnWithTimeline();
    const record = (await timelineToReplace(
      'conv-1',
      { channel: 'C_BUGS', threadTs },
      store,
    )) as ProgressRecord;
    await removeReplacedTimeline('conv-1', record, '1.000001', deps());
    await removeReplacedTimeline('conv-1', record, '1.000001', deps());
    expect(deletedTs()).toEqual([record.ts]);
    expect(store.records.get('conv-1')?.replacedBy).toBe('1.000001');
    expect(warnings).toEqual([]);
  });
});

describe('a timeline no post replaces', () => {
  it("is one still open, a stopped turn's, one in another thread, or one closed without its closing line kept", async () => {
    await turnWithTimeline({ kind: 'continues' });
    expect(await timelineToReplace('conv-1', { channel: 'C_BUGS', threadTs }, store)).toBeUndefined();
    // A stopped turn's timeline says what happened: the notice after it does not replace it.
    await turnWithTimeline({ kind: 'stopped', reason: 'stopped by <@U_RITA>' });
    expect(await timelineToReplace('conv-1', { channel: 'C_BUGS', threadTs }, store)).toBeUndefined();

    await turnWithTimeline();
    expect(await timelineToReplace('conv-1', { channel: 'C_BUGS' }, store)).toBeUndefined();
    expect(await timelineToReplace('conv-1', { channel: 'C_OTHER', threadTs }, store)).toBeUndefined();

    // Closed by a release that kept no closing line: its answer was posted below it long ago.
    const { closing: _closing, ...older } = store.records.get('conv-1') as ProgressRecord;
    store.records.set('conv-1', older);
    expect(await timelineToReplace('conv-1', { channel: 'C_BUGS', threadTs }, store)).toBeUndefined();
  });
});

describe('the summary', () => {
  it(`lists the last ${SUMMARY_STEPS} steps and counts the earlier ones`, () => {
    const tasks = Array.from({ length: SUMMARY_STEPS + 3 }, (_, i) => ({
      id: `t${i}`,
      title: `Step <${i}>`,
      status: 'complete' as const,
    }));
    const summary = timelineSummary({
      key: 'progress:1',
      channel: 'C_BUGS',
      threadTs: '1.1',
      ts: '1.2',
      kind: 'message',
      open: false,
      tasks,
      plan: { title: 'Fixing the issue', steps: [{ id: 'triage', title: 'Triage', status: 'complete' }] },
      startedAt: new Date(0).toISOString(),
      closing: ':white_check_mark: Done: 11 steps in 40 s',
    });
    const lines = summary.split('\n');
    expect(lines[0]).toBe(':white_check_mark: Done: 11 steps in 40 s');
    expect(lines[1]).toBe('*Fixing the issue*: :white_check_mark: Triage');
    expect(lines[2]).toBe('_3 earlier steps_');
    expect(lines.slice(3)).toHaveLength(SUMMARY_STEPS);
    expect(lines.at(-1)).toBe(`:white_check_mark: Step &lt;${SUMMARY_STEPS + 2}&gt;`);
  });
});

describe("the fake Slack's chat.delete", () => {
  it("removes a reply, keeps a deleted message with replies as a tombstone, refuses others' messages", async () => {
    const client = createProgressClient({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl });
    const parent = slack.postAsBot({ channel: 'C_BUGS', text: 'A summary' });
    slack.postAsUser({ channel: 'C_BUGS', user: 'U_RITA', text: 'thanks', thread_ts: parent.ts });
    await client.deleteMessage({ channel: 'C_BUGS', ts: parent.ts });
    expect(slack.find('C_BUGS', parent.ts).text).toBe(DELETED_TEXT);

    await expect(client.deleteMessage({ channel: 'C_BUGS', ts: threadTs })).rejects.toMatchObject({
      slackError: 'cant_delete_message',
    });
    await expect(client.deleteMessage({ channel: 'C_BUGS', ts: '9.000001' })).rejects.toMatchObject({
      slackError: 'message_not_found',
    });
  });
});
