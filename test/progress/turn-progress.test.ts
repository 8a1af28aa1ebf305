import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import { closeOpenTimeline } from '../../lambdas/progress/open-turn-progress.ts';
import type { ProgressSlack, ProgressStore, ProgressTarget } from '../../lambdas/progress/ports.ts';
import { TurnProgress, type TurnProgressDeps } from '../../lambdas/progress/turn-progress.ts';
import { createProgressClient } from '../../lambdas/slack/progress-client.ts';
import { MemoryProgressStore } from '../../local/progress/memory-progress-store.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { fakeAssistantThread, fakeStreams } from '../../local/slack/streams.ts';
import { eventually } from '../support/eventually.ts';

/** The post ledger, as a turn's progress uses it. */
type ProgressLedger = TurnProgressDeps['posts'];

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

/** The action id of the timeline's Stop button (stated here, not imported: the value is what this test checks). */
const STOP_ACTION_ID = 'stop_turn';

/** What a timeline says of a turn that ended unfinished (stated here, not imported: the value is what this test checks). */
const UNFINISHED_TURN = 'the turn ended without finishing';

const BOT_TOKEN = 'xoxb-sandbox-token';

class MemoryStore extends MemoryProgressStore {}

class MemoryLedger implements ProgressLedger {
  readonly posts = new Map<string, SlackPostOutput>();
  readonly attempts = new Map<string, number>();
  failRecord = false;
  async find(id: string, key: string) {
    return this.posts.get(`${id}/${key}`);
  }
  async record(id: string, key: string, output: SlackPostOutput) {
    if (this.failRecord) throw new Error('the Lambda died here');
    this.posts.set(`${id}/${key}`, output);
  }
  async attempt(id: string, key: string) {
    const n = (this.attempts.get(`${id}/${key}`) ?? 0) + 1;
    this.attempts.set(`${id}/${key}`, n);
    return { earlier: n > 1, firstAttemptAt: new Date(0).toISOString() };
  }
}

let slack: FakeSlack;
let server: FakeSlackServer;
let threadTs: string;
let store: MemoryStore;
let ledger: MemoryLedger;
let warnings: string[];

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
  threadTs = slack.postAsUser({ channel: 'C_BUGS', user: 'U_RITA', text: 'Checkout total is wrong' }).ts;
  store = new MemoryStore();
  ledger = new MemoryLedger();
  warnings = [];
});

afterEach(async () => {
  await slack.settled();
  await server.close();
});

function deps(overrides: Partial<TurnProgressDeps> = {}): TurnProgressDeps {
  return {
    slack: createProgressClient({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl }),
    store,
    posts: ledger,
    clock: { now: () => new Date() },
    logger: { info: () => {}, warn: (message) => void warnings.push(message), error: () => {} },
    pacing: { intervalMs: 0 },
    showAfterMs: 0,
    ...overrides,
  };
}

function target(overrides: Partial<ProgressTarget> = {}): ProgressTarget {
  return {
    conversationId: 'conv-1',
    turn: 1,
    channel: 'C_BUGS',
    threadTs,
    recipientUserId: 'U_RITA',
    assistantThread: false,
    ...overrides,
  };
}

const search = { id: 'toolu_1', name: 'search_code', input: { pattern: 'total' } };
const read = {
  id: 'toolu_2',
  name: 'read_file',
  input: { path: 'src/cart.ts', start_line: 40, end_line: 80 },
};

function botReplies() {
  return slack.messages({ channel: 'C_BUGS', thread_ts: threadTs }).filter((m) => m.bot);
}

describe('a turn streamed where someone can receive it', () => {
  it('shows a task per tool call with its outcome, a Stop button, and stops when the turn is done', async () => {
    const progress = new TurnProgress(target(), deps());
    progress.begin();
    progress.toolStarted(search);
    progress.toolFinished(search, { output: '3 matches in 2 files', failed: false });
    progress.toolStarted(read);
    progress.toolFinished(read, { output: 'ENOENT: no such file', failed: true });
    await progress.finish({ kind: 'done' });

    const [stream] = fakeStreams(slack);
    expect(stream?.state).toBe('completed');
    expect(stream?.tasks).toEqual([
      {
        id: 'toolu_1',
        title: 'Searching code for "total"',
        status: 'complete',
        output: '3 matches in 2 files',
      },
      { id: 'toolu_2', title: 'Reading src/cart.ts:40-80', status: 'error', output: 'ENOENT: no such file' },
    ]);
    const stop = stream?.calls[0]?.chunks.find((c) => c.type === 'blocks') as
      | { blocks: unknown[] }
      | undefined;
    expect(JSON.stringify(stop?.blocks)).toContain(`"action_id":"${STOP_ACTION_ID}","text"`);
    expect(JSON.stringify(stop?.blocks)).toContain('"value":"conv-1"');
    expect(botReplies()).toHaveLength(1);
    expect(ledger.posts.get('conv-1/progress:1')?.ts).toBe(stream?.ts);
    expect(store.records.get('conv-1')).toMatchObject({ kind: 'stream', open: false });
    // Closed: the message shows the tasks and the closing line, and no Stop button.
    expect(JSON.stringify(botReplies()[0]?.blocks)).not.toContain(STOP_ACTION_ID);
    expect(JSON.stringify(botReplies()[0]?.blocks)).toContain('Done: 2 steps');
  });

  it('sets and clears the status of an assistant thread (a DM), with rotating loading messages', async () => {
    const dm = slack.postAsUser({ channel: 'D_RITA', user: 'U_RITA', text: 'why is checkout wrong?' }).ts;
    const progress = new TurnProgress(
      target({ channel: 'D_RITA', threadTs: dm, assistantThread: true }),
      deps(),
    );
    progress.begin();
    progress.toolStarted(search);
    progress.toolFinished(search, { output: 'found', failed: false });
    await progress.finish({ kind: 'done' });
    const thread = fakeAssistantThread(slack, 'D_RITA', dm);
    expect(thread?.statuses).toEqual(['is working on it…', '']);
    expect(thread?.loadingMessages).toEqual([]);
    expect(fakeStreams(slack)[0]?.channel).toBe('D_RITA');
  });
});

describe('a workflow with a plan', () => {
  it('streams in plan mode: the plan title, its stages, and the tool calls as tasks', async () => {
    const plan = {
      title: 'Fixing the issue',
      steps: [
        { id: 'stage:triage', title: 'Triage', status: 'complete' as const },
        { id: 'stage:analysis', title: 'Analysis', status: 'in_progress' as const },
      ],
    };
    const progress = new TurnProgress(target(), deps(), plan);
    progress.begin();
    progress.toolStarted(search);
    progress.toolFinished(search, { output: 'found', failed: false });
    // Waited for on progress, not on a time limit (vi.waitFor's 1 s fails on a busy machine).
    await eventually(
      async () => fakeStreams(slack),
      (streams) => streams.length === 1,
      'the stream of the first task',
    );
    await progress.finish({ kind: 'done' });
    const [stream] = fakeStreams(slack);
    expect(stream?.mode).toBe('plan');
    expect(stream?.planTitle).toBe('Fixing the issue');
    // Done: the turn's stage is complete too.
    expect(stream?.tasks.map((t) => [t.id, t.status])).toEqual([
      ['stage:triage', 'complete'],
      ['stage:analysis', 'complete'],
      ['toolu_1', 'complete'],
    ]);
    expect(stream?.calls[0]?.chunks).toContainEqual({
      type: 'task_update',
      id: 'stage:analysis',
      title: 'Analysis',
      status: 'in_progress',
    });
    expect(botReplies()[0]?.blocks).toContainEqual(
      expect.objectContaining({ type: 'plan', title: 'Fixing the issue' }),
    );
  });

  it('shows the plan in the message updated in place too', async () => {
    const { recipientUserId: _none, ...alertTarget } = target();
    const progress = new TurnProgress(alertTarget, deps(), {
      title: 'Investigating the incident',
      steps: [{ id: 'stage:triage', title: 'Triage', status: 'in_progress' }],
    });
    progress.begin();
    progress.toolStarted(search);
    await progress.finish({ kind: 'done' });
    expect(JSON.stringify(botReplies()[0]?.blocks)).toContain('*Investigating the incident*');
  });
});

describe('where a stream cannot be used', () => {
  it('posts one message and updates it in place when nobody can receive a stream (an alert-started thread)', async () => {
    const { recipientUserId: _none, ...alertTarget } = target();
    const progress = new TurnProgress(alertTarget, deps());
    progress.begin();
    progress.toolStarted(search);
    progress.toolFinished(search, { output: '3 matches', failed: false });
    await progress.finish({ kind: 'done' });

    expect(fakeStreams(slack)).toEqual([]);
    const [message] = botReplies();
    expect(botReplies()).toHaveLength(1);
    const text = JSON.stringify(message?.blocks);
    expect(text).toContain('Searching code for \\"total\\"');
    expect(text).toContain('3 matches');
    // Done: the Stop button is gone.
    expect(text).not.toContain(STOP_ACTION_ID);
    expect(slack.apiCalls('chat.update').length).toBeGreaterThan(0);
  });

  it('falls back to the message when Slack refuses the stream', async () => {
    const progress = new TurnProgress(target({ recipientUserId: 'U_NOBODY' }), deps());
    progress.begin();
    progress.toolStarted(search);
    await progress.finish({ kind: 'done' });
    expect(slack.apiCalls('chat.startStream')[0]?.outcome).toEqual({ error: 'user_not_found' });
    expect(botReplies()).toHaveLength(1);
    expect(store.records.get('conv-1')?.kind).toBe('message');
  });
});

describe('a turn over several invocations', () => {
  it('continues the same timeline in the next invocation', async () => {
    const first = new TurnProgress(target(), deps());
    first.begin();
    first.toolStarted(search);
    first.toolFinished(search, { output: 'found', failed: false });
    await first.finish({ kind: 'continues' });

    const second = new TurnProgress(target({ turn: 2 }), deps());
    second.begin();
    second.toolStarted(read);
    second.toolFinished(read, { output: 'read 41 lines', failed: false });
    await second.finish({ kind: 'done' });

    expect(botReplies()).toHaveLength(1);
    const [stream] = fakeStreams(slack);
    expect(stream?.tasks.map((t) => t.id)).toEqual(['toolu_1', 'toolu_2']);
    expect(stream?.state).toBe('completed');
    expect(slack.apiCalls('chat.startStream')).toHaveLength(1);
  });

  it('updates the same message in place once Slack has ended the stream', async () => {
    const first = new TurnProgress(target(), deps());
    first.begin();
    first.toolStarted(search);
    await first.finish({ kind: 'continues' });
    const ts = fakeStreams(slack)[0]?.ts as string;
    await createProgressClient({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl }).stopStream({
      channel: 'C_BUGS',
      ts,
    });

    const second = new TurnProgress(target({ turn: 2 }), deps());
    second.begin();
    second.toolStarted(read);
    second.toolFinished(read, { output: 'read', failed: false });
    await second.finish({ kind: 'done' });
    expect(botReplies()).toHaveLength(1);
    expect(JSON.stringify(botReplies()[0]?.blocks)).toContain('Reading src/cart.ts:40-80');
    expect(store.records.get('conv-1')?.kind).toBe('message');
  });

  it('posts nothing twice when a retried turn finds the message its first attempt posted', async () => {
    const { recipientUserId: _none, ...alertTarget } = target();
    const forgetful: ProgressStore = {
      load: async () => undefined,
      save: async () => {},
      saveAt: async () => true,
    };
    ledger.failRecord = true;
    const first = new TurnProgress(alertTarget, deps({ store: forgetful }));
    first.begin();
    first.toolStarted(read);
    await first.finish({ kind: 'continues' });
    expect(botReplies()).toHaveLength(1);

    ledger.failRecord = false;
    const retry = new TurnProgress(alertTarget, deps({ store: forgetful }));
    retry.begin();
    retry.toolStarted(search);
    retry.toolFinished(search, { output: 'found', failed: false });
    await retry.finish({ kind: 'done' });
    expect(botReplies()).toHaveLength(1);
    expect(JSON.stringify(botReplies()[0]?.blocks)).toContain('Searching code');
  });
});

describe('limits and failures', () => {
  it('holds Slack calls on one message to at most one per second', async () => {
    let now = Date.parse('2015-11-27T01:00:00Z');
    const at: number[] = [];
    const real = createProgressClient({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl });
    const timed: ProgressSlack = {
      ...real,
      startStream: (a) => {
        at.push(now);
        return real.startStream(a);
      },
      appendStream: (a) => {
        at.push(now);
        return real.appendStream(a);
      },
      stopStream: (a) => {
        at.push(now);
        return real.stopStream(a);
      },
    };
    const progress = new TurnProgress(
      target(),
      deps({
        slack: timed,
        clock: { now: () => new Date(now) },
        pacing: {
          intervalMs: 1_000,
          now: () => now,
          sleep: async (ms) => {
            now += ms;
          },
        },
      }),
    );
    progress.begin();
    for (let i = 0; i < 12; i++) {
      const use = { id: `toolu_${i}`, name: 'read_file', input: { path: `src/f${i}.ts` } };
      progress.toolStarted(use);
      await Promise.resolve();
      progress.toolFinished(use, { output: 'ok', failed: false });
      now += 150;
    }
    await progress.finish({ kind: 'done' });
    for (let i = 1; i < at.length; i++) expect((at[i] ?? 0) - (at[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect(fakeStreams(slack)[0]?.tasks).toHaveLength(12);
    expect(at.length).toBeLessThan(12);
  });

  it('never fails the turn when Slack is unreachable: it logs and carries on', async () => {
    const down = createProgressClient({
      token: BOT_TOKEN,
      slackApiUrl: 'http://127.0.0.1:9/api/',
      timeoutMs: 200,
    });
    const progress = new TurnProgress(target(), deps({ slack: down }));
    progress.begin();
    progress.toolStarted(search);
    progress.toolFinished(search, { output: 'found', failed: false });
    await expect(progress.finish({ kind: 'done' })).resolves.toBeUndefined();
    expect(warnings.some((w) => w.includes('live progress'))).toBe(true);
  });

  it('closes the stream of a stopped turn with its reason, and takes its Stop button away', async () => {
    const progress = new TurnProgress(target(), deps());
    progress.begin();
    progress.toolStarted(search);
    await progress.finish({ kind: 'stopped', reason: 'the daily cost ceiling was reached' });
    const [stream] = fakeStreams(slack);
    expect(stream).toMatchObject({ channel: 'C_BUGS', state: 'completed' });
    expect(botReplies()).toHaveLength(1);
    expect(botReplies()[0]?.text).toContain('Stopped after 1 step: the daily cost ceiling was reached');
    expect(JSON.stringify(botReplies()[0]?.blocks)).not.toContain(STOP_ACTION_ID);
    expect(JSON.stringify(botReplies()[0]?.blocks)).toContain('Searching code for \\"total\\"');
  });

  it('never leaves a phase in progress under a stop', async () => {
    const progress = new TurnProgress(target(), deps(), {
      title: 'Investigating the incident',
      steps: [
        { id: 'stage:triage', title: 'Triage', status: 'complete' },
        { id: 'stage:hypotheses', title: 'Hypotheses', status: 'in_progress' },
      ],
    });
    progress.begin();
    progress.toolStarted(search);
    progress.toolFinished(search, { output: 'found', failed: false });
    await progress.finish({ kind: 'stopped', reason: 'stopped by a person in the thread' });
    const stream = fakeStreams(slack)[0];
    expect(stream?.tasks.find((t) => t.id === 'stage:hypotheses')?.status).toBe('error');
    expect(JSON.stringify(botReplies()[0]?.blocks)).not.toContain('in_progress');
  });
});

describe('a turn without tool calls', () => {
  it('shows no timeline at all: nothing is posted or streamed', async () => {
    const progress = new TurnProgress(target(), deps(), {
      title: 'Investigating the incident',
      steps: [{ id: 'stage:triage', title: 'Triage', status: 'in_progress' }],
    });
    progress.begin();
    await progress.finish({ kind: 'done' });
    expect(fakeStreams(slack)).toEqual([]);
    expect(botReplies()).toEqual([]);
    expect(slack.apiCalls('chat.postMessage')).toEqual([]);
  });

  it('closes the timeline an earlier invocation of the turn began', async () => {
    const first = new TurnProgress(target(), deps());
    first.begin();
    first.toolStarted(search);
    await first.finish({ kind: 'continues' });
    const second = new TurnProgress(target({ turn: 2 }), deps());
    second.begin();
    await second.finish({ kind: 'done' });
    expect(fakeStreams(slack)[0]?.state).toBe('completed');
    expect(JSON.stringify(botReplies()[0]?.blocks)).not.toContain(STOP_ACTION_ID);
    expect(store.records.get('conv-1')?.open).toBe(false);
  });
});

describe('a task that comes while the stream is being started', () => {
  it('is shown in the next call, not lost', async () => {
    const real = createProgressClient({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl });
    let starting = () => {};
    const started = new Promise<void>((resolve) => {
      starting = resolve;
    });
    const slow: ProgressSlack = {
      ...real,
      startStream: async (a) => {
        starting();
        return real.startStream(a);
      },
    };
    const progress = new TurnProgress(target(), deps({ slack: slow }));
    progress.begin();
    progress.toolStarted(search);
    await started;
    progress.toolStarted(read);
    await progress.finish({ kind: 'done' });
    expect(fakeStreams(slack)[0]?.tasks.map((t) => t.id)).toEqual(['toolu_1', 'toolu_2']);
  });
});

describe('a timeline its turn left open', () => {
  it("is closed, without its Stop button, before the workflow's next post", async () => {
    const turn = new TurnProgress(target(), deps());
    turn.begin();
    turn.toolStarted(search);
    // The turn failed after its retries: its last invocation kept the timeline open.
    await turn.finish({ kind: 'continues' });
    expect(store.records.get('conv-1')?.open).toBe(true);

    const read = await closeOpenTimeline('conv-1', { progress: async () => deps(), logger: deps().logger });

    // It changed the record: nothing read is handed on, the next reader reads it again.
    expect(read).toBeUndefined();
    expect(fakeStreams(slack)[0]?.state).toBe('completed');
    const shown = JSON.stringify(botReplies()[0]?.blocks);
    expect(shown).toContain(`Stopped after 1 step: ${UNFINISHED_TURN}`);
    expect(shown).not.toContain(STOP_ACTION_ID);
    expect(store.records.get('conv-1')?.open).toBe(false);
    expect(botReplies()).toHaveLength(1);
  });

  it('says who closed the conversation when a close came while it was open', async () => {
    const { recipientUserId: _none, ...alertTarget } = target();
    const turn = new TurnProgress(alertTarget, deps());
    turn.begin();
    turn.toolStarted(search);
    await turn.finish({ kind: 'continues' });

    await closeOpenTimeline('conv-1', {
      progress: async () => deps(),
      logger: deps().logger,
      conversation: async () => ({ closeRequested: true, ownerId: 'U_RITA' }),
    });

    // A message updated in place: the closing line in its last update, the mention kept.
    const shown = JSON.stringify(botReplies()[0]?.blocks);
    expect(shown).toContain('Stopped after 1 step: closed by <@U_RITA>');
    expect(shown).not.toContain(UNFINISHED_TURN);
    expect(shown).not.toContain(STOP_ACTION_ID);
  });

  it('is left alone when already closed', async () => {
    const turn = new TurnProgress(target(), deps());
    turn.begin();
    turn.toolStarted(search);
    await turn.finish({ kind: 'done' });
    const calls = slack.apiCalls().length;
    const read = await closeOpenTimeline('conv-1', { progress: async () => deps(), logger: deps().logger });
    expect(slack.apiCalls().length).toBe(calls);
    // Left as it was: what it read is handed on, the closed record itself.
    expect(read?.record).toEqual(store.records.get('conv-1'));
    expect(read?.record?.open).toBe(false);
  });

  it('is taken as the caller read it: not read again when there is nothing to close, closed when open', async () => {
    const turn = new TurnProgress(target(), deps());
    turn.begin();
    turn.toolStarted(search);
    await turn.finish({ kind: 'continues' });
    const asRead = store.records.get('conv-1');
    const notBuilt = () => Promise.reject(new Error('the progress deps were built'));

    // No timeline, or a closed one, as read: handed back as it is, with nothing built or read.
    for (const read of [{ record: undefined }, { record: asRead && { ...asRead, open: false } }]) {
      expect(await closeOpenTimeline('conv-1', { progress: notBuilt, logger: deps().logger, read })).toEqual(
        read,
      );
    }
    expect(warnings).toEqual([]);
    // The open one as read: closed.
    const read = await closeOpenTimeline('conv-1', {
      progress: async () => deps(),
      logger: deps().logger,
      read: { record: asRead },
    });
    expect(read).toBeUndefined();
    expect(store.records.get('conv-1')?.open).toBe(false);
    expect(JSON.stringify(botReplies()[0]?.blocks)).toContain(`Stopped after 1 step: ${UNFINISHED_TURN}`);
  });
});

describe('a quick turn', () => {
  it('shows no timeline when it ends before its timeline is due: its answer alone', async () => {
    const progress = new TurnProgress(target(), deps({ showAfterMs: 60_000 }));
    progress.begin();
    progress.toolStarted(search);
    progress.toolFinished(search, { output: '3 matches', failed: false });
    await progress.finish({ kind: 'done' });
    expect(botReplies()).toEqual([]);
    expect(fakeStreams(slack)).toEqual([]);
    expect(store.records.get('conv-1')).toBeUndefined();
  });

  it('shows its timeline once due when it is still working, even between two tasks', async () => {
    // The turn's clock stands still: only the timer set at begin() can tell it is due.
    const frozen = new Date('2001-02-03T04:05:06Z');
    const progress = new TurnProgress(target(), deps({ showAfterMs: 5, clock: { now: () => frozen } }));
    progress.toolStarted(search);
    await eventually(
      async () => store.load('conv-1'),
      (record) => record === undefined,
      'the first task handled without a timeline',
    );
    expect(fakeStreams(slack)).toEqual([]);
    progress.begin();
    await eventually(
      async () => fakeStreams(slack),
      (streams) => streams.length === 1,
      'the timeline of a turn still working',
    );
    await progress.finish({ kind: 'done' });
    expect(fakeStreams(slack)[0]?.state).toBe('completed');
  });
});
