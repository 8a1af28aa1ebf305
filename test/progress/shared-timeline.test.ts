import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import type { ProgressTarget } from '../../lambdas/progress/ports.ts';
import { isClaim } from '../../lambdas/progress/shared-record.ts';
import type { TimelinePlan } from '../../lambdas/progress/timeline.ts';
import { TurnProgress, type TurnProgressDeps } from '../../lambdas/progress/turn-progress.ts';
import { createProgressClient } from '../../lambdas/slack/progress-client.ts';
import { MemoryProgressStore } from '../../local/progress/memory-progress-store.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { fakeStreams } from '../../local/slack/streams.ts';
import { until } from '../support/eventually.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

/** The action id of the timeline's Stop button (stated here, not imported: the value is what this test checks). */
const STOP_ACTION_ID = 'stop_turn';

/**
 * A round's timeline, shared by turns that run at once (an incident's hypotheses tested in
 * parallel): one message for the whole round, every turn's tasks in it, closed by the round's
 * last turn.
 */

const BOT_TOKEN = 'xoxb-sandbox-token';
let slack: FakeSlack;
let server: FakeSlackServer;
let threadTs: string;
let store: MemoryProgressStore;
const posts = new Map<string, SlackPostOutput>();

beforeEach(async () => {
  slack = new FakeSlack({
    botToken: BOT_TOKEN,
    channels: [{ id: 'C_INC', name: 'incidents' }],
    users: [{ id: 'U_RESP', name: 'responder' }],
  });
  server = await listenFakeSlack(slack);
  threadTs = slack.postAsUser({ channel: 'C_INC', user: 'U_RESP', text: 'checkout is slow' }).ts;
  store = new MemoryProgressStore();
  posts.clear();
});

afterEach(async () => {
  await slack.settled();
  await server.close();
});

function deps(): TurnProgressDeps {
  return {
    slack: createProgressClient({ token: BOT_TOKEN, slackApiUrl: server.slackApiUrl }),
    store,
    posts: {
      find: async (id, key) => posts.get(`${id}/${key}`),
      record: async (id, key, output) => void posts.set(`${id}/${key}`, output),
    },
    clock: { now: () => new Date() },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    pacing: { intervalMs: 0 },
    showAfterMs: 0,
    // The code's pause while another turn's claim on the timeline becomes a message (injected):
    // it ends when the stored timeline is no claim any more, not after a fixed time, so a slow
    // machine cannot run out the code's few looks before the other turn posted.
    sleep: () =>
      until(async () => {
        const record = await store.load('inc-1');
        return record === undefined || !isClaim(record);
      }, "the other turn's claim to become a message").then(() => undefined),
  };
}

function target(turn: number, recipient = true): ProgressTarget {
  return {
    conversationId: 'inc-1',
    turn,
    channel: 'C_INC',
    threadTs,
    ...(recipient ? { recipientUserId: 'U_RESP' } : {}),
    assistantThread: false,
  };
}

const plan = (current: number): TimelinePlan => ({
  title: 'Investigating the incident',
  steps: ['Triage', 'Testing the hypotheses', 'Remediation plan'].map((title, i) => ({
    id: `stage:${i}`,
    title,
    status: i < current ? 'complete' : i === current ? 'in_progress' : 'pending',
  })),
});

const query = (id: string) => ({ id, name: 'query_logs', input: { service: 'checkout' } });

/** A turn of the round: one tool call, then it ends (`continues`: the round goes on). */
async function turnWithQuery(turn: number, id: string, current: number, recipient = true) {
  const progress = new TurnProgress(target(turn, recipient), deps(), plan(current), true);
  progress.begin();
  progress.toolStarted(query(id));
  progress.toolFinished(query(id), { output: '12 lines', failed: false });
  await progress.finish({ kind: 'continues' });
}

function botReplies() {
  return slack.messages({ channel: 'C_INC', thread_ts: threadTs }).filter((m) => m.bot);
}

describe('one timeline per round', () => {
  it('gathers the turns of a round, three at once among them, in one stream closed by the last turn', async () => {
    await turnWithQuery(1, 'toolu_triage', 0);
    await Promise.all([
      turnWithQuery(2, 'toolu_h1', 1),
      turnWithQuery(3, 'toolu_h2', 1),
      turnWithQuery(4, 'toolu_h3', 1),
    ]);
    const last = new TurnProgress(target(5), deps(), plan(2), true);
    last.begin();
    await last.finish({ kind: 'done' });

    const streams = fakeStreams(slack);
    expect(streams).toHaveLength(1);
    expect(botReplies()).toHaveLength(1);
    const [stream] = streams;
    expect(stream?.state).toBe('completed');
    const tasks = stream?.tasks.filter((t) => !t.id.startsWith('stage:')).map((t) => t.id);
    expect(tasks?.sort()).toEqual(['toolu_h1', 'toolu_h2', 'toolu_h3', 'toolu_triage']);
    // Later turns moved the plan on: the last stage is closed done, none left in progress.
    expect(stream?.tasks.filter((t) => t.id.startsWith('stage:')).map((t) => t.status)).toEqual([
      'complete',
      'complete',
      'complete',
    ]);
    // The closed message keeps every turn's task, counts them all, and has no Stop button.
    const closed = JSON.stringify(botReplies()[0]?.blocks);
    expect(closed).not.toContain(STOP_ACTION_ID);
    expect(closed).toContain('Done: 4 steps');
    expect(store.records.get('inc-1')?.tasks.map((t) => t.status)).toEqual([
      'complete',
      'complete',
      'complete',
      'complete',
    ]);
  });

  it('posts one message for turns that start at once with no timeline yet, and keeps all their tasks', async () => {
    await Promise.all([
      turnWithQuery(2, 'toolu_h1', 1, false),
      turnWithQuery(3, 'toolu_h2', 1, false),
      turnWithQuery(4, 'toolu_h3', 1, false),
    ]);
    const last = new TurnProgress(target(5, false), deps(), plan(2), true);
    last.begin();
    await last.finish({ kind: 'done' });

    expect(botReplies()).toHaveLength(1);
    const shown = JSON.stringify(botReplies()[0]?.blocks);
    expect(shown).toContain('Done: 3 steps');
    expect(shown).not.toContain(STOP_ACTION_ID);
    expect(
      store.records
        .get('inc-1')
        ?.tasks.map((t) => t.id)
        .sort(),
    ).toEqual(['toolu_h1', 'toolu_h2', 'toolu_h3']);
  });

  it('is one timeline per turn without the round: each turn that ends closes its own', async () => {
    const progress = new TurnProgress(target(1), deps(), plan(0));
    progress.begin();
    progress.toolStarted(query('toolu_a'));
    await progress.finish({ kind: 'done' });
    const next = new TurnProgress(target(2), deps(), plan(1));
    next.begin();
    next.toolStarted(query('toolu_b'));
    await next.finish({ kind: 'done' });
    expect(fakeStreams(slack)).toHaveLength(2);
  });
});
