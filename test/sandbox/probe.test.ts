import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/**
 * The kernel end to end in the sandbox: the kernel_probe state machine taken from the
 * synthesized template, driven through signed Slack requests and observed through the fake
 * Slack's recorded posts, the executions' histories and the stored conversation.
 */

const PROBE = 'C_PROBE';
const TIME_SCALE = 0.001;
let sandbox: Sandbox;
let store: DynamoConversationStore;

beforeAll(async () => {
  sandbox = await workerSandbox({
    timeScale: TIME_SCALE,
    modules: [KERNEL_PROBE_MODULE],
    config: { channels: { probe: PROBE } },
    logLevel: 'SILENT',
  });
  store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
});
afterAll(async () => sandbox?.stop());

const driver = sandboxDriver(() => sandbox, { stallMs: 25_000 });
const { api } = driver;

const post = (user: string, text: string, threadTs?: string) => driver.post(PROBE, user, text, threadTs);

const botReplies = async (threadTs: string) =>
  (await driver.messages(PROBE, threadTs)).filter((m) => m.bot).map((m) => m.text);

type Execution = { status: string; events: { type: string; stateName?: string; timestamp: string }[] };
const execution = (rootTs: string) =>
  api<Execution>(`/sandbox/executions/${conversationIdFor('kernel_probe', PROBE, rootTs)}`);

// Not there yet (e.g. the execution is not started) counts as "not yet", not as a failure.
const { eventually } = driver;

const conversation = (rootTs: string) =>
  store.getConversation(conversationIdFor('kernel_probe', PROBE, rootTs), { consistent: true });

/** Resolves when the conversation's wait for the reporter is registered (RegisterWait's write). */
const waitIsOpen = (rootTs: string) =>
  eventually(
    () => conversation(rootTs),
    (c) => c?.wait !== undefined,
    'the wait to open',
  );

/** Resolves once the bot has replied `count` times in the thread. */
const replies = (root: string, count: number) =>
  eventually(
    () => botReplies(root),
    (r) => r.length === count,
    `reply ${count}`,
  );

/** Resolves with the execution once it has ended. */
const finished = (root: string) =>
  eventually(
    () => execution(root),
    (e) => e.status !== 'RUNNING',
    'the execution to end',
  );

/** The reporter reports; resolves with the thread once the first turn replied and the wait is open. */
async function reportAndAwaitWait(text: string): Promise<string> {
  const root = await post('U_REPORTER', text);
  await replies(root, 1);
  await waitIsOpen(root);
  return root;
}

/** The reporter closes the conversation once it waits; resolves with the finished execution. */
async function closeAndFinish(root: string, text = 'never mind'): Promise<Execution> {
  await waitIsOpen(root);
  await post('U_REPORTER', text, root);
  return finished(root);
}

const waitEntries = (e: Execution) =>
  e.events.filter((ev) => ev.type === 'TaskStateEntered' && ev.stateName === 'Wait for reporter');

/** When a state was first entered, in milliseconds. */
const enteredAt = (e: Execution, stateName: string) =>
  Date.parse(
    e.events.find((ev) => ev.type === 'TaskStateEntered' && ev.stateName === stateName)?.timestamp ?? '',
  );
const waitEnteredAt = (e: Execution) => enteredAt(e, 'Wait for reporter');
const timedOutAt = (e: Execution) => enteredAt(e, 'Reply timed out');

// The tests run at once (`describe.concurrent`), each in a thread of its own: most of their time
// is the probe's scaled waits (its 3 s "Finish turn", the 7.2 s reply timeout), which overlap
// instead of adding up (about 14 s for the file instead of 35 s).
describe.concurrent('the kernel in the sandbox (kernel_probe)', () => {
  it('wakes the wait once for a reply sent after it opened, then closes on "never mind"', async () => {
    const root = await reportAndAwaitWait('the export button does nothing');

    await post('U_REPORTER', 'it happens on Firefox too', root);
    await replies(root, 2);
    const done = await closeAndFinish(root);

    expect(await botReplies(root)).toEqual([
      'probe turn 1 got 1 message(s)',
      'probe turn 2 got 1 message(s)',
      'probe turn 3 got 1 message(s)',
    ]);
    expect(done.status).toBe('SUCCEEDED');
    expect(waitEntries(done)).toHaveLength(2);
    const resolved = await conversation(root);
    expect(resolved?.status).toBe('resolved');
    // The cost ledger counts the Lambda time of the conversation's tasks.
    expect(resolved?.ledger?.lambdaMs).toBeGreaterThan(0);
  });

  it('wakes the wait at once, and once, for a reply sent before it opened', async () => {
    const root = await post('U_REPORTER', 'search returns nothing');
    await replies(root, 1);

    // The turn is still finishing ("Finish turn"): no wait is open yet when the reply is stored.
    await post('U_REPORTER', 'only for queries with accents', root);
    await sandbox.idle();
    const before = await conversation(root);
    expect(before?.wait).toBeUndefined();
    expect(await store.pendingMessages(before?.id ?? '')).toHaveLength(1);

    await replies(root, 2);
    const done = await closeAndFinish(root, 'close this');

    expect(await botReplies(root)).toEqual([
      'probe turn 1 got 1 message(s)',
      'probe turn 2 got 1 message(s)',
      'probe turn 3 got 1 message(s)',
    ]);
    expect(waitEntries(done)).toHaveLength(2);
  });

  it('takes the timeout path when nobody answers, under SANDBOX_TIME_SCALE', async () => {
    const root = await post('U_REPORTER', 'the logo is blurry');

    const done = await finished(root);

    expect(done.status).toBe('SUCCEEDED');
    expect(await botReplies(root)).toEqual(['probe turn 1 got 1 message(s)', 'probe timed out']);
    expect(done.events.some((e) => e.type === 'TaskStateEntered' && e.stateName === 'Reply timed out')).toBe(
      true,
    );
    expect((await conversation(root))?.status).toBe('resolved');
    // The 2 hours (7,200 s) of waiting ran on the scaled clock: the timeout came no sooner than
    // 7.2 s after the wait began (and the test did not wait two hours for it).
    expect(timedOutAt(done) - waitEnteredAt(done)).toBeGreaterThanOrEqual(7_200_000 * TIME_SCALE);
  });

  it("ignores a third party's reply and the bot's own posts: nothing wakes", async () => {
    const root = await reportAndAwaitWait('dark mode toggles back');

    await post('U_THIRD', 'same here!', root);
    await sandbox.idle();

    const waiting = await conversation(root);
    expect(waiting?.wait).toBeDefined();
    expect(await store.pendingMessages(waiting?.id ?? '')).toEqual([]);
    expect(await botReplies(root)).toEqual(['probe turn 1 got 1 message(s)']);
    await closeAndFinish(root);
  });

  it('stores and delivers once an event Slack sends three times', async () => {
    const root = await reportAndAwaitWait('avatars do not load');
    const body = {
      type: 'event_callback',
      team_id: 'T_SANDBOX',
      api_app_id: 'A_BOT',
      event_id: `EvRETRY${root.replace('.', '')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'message',
        channel: PROBE,
        user: 'U_REPORTER',
        text: 'only on the mobile app',
        ts: `${root.split('.')[0]}.999999`,
        thread_ts: root,
        event_ts: root,
        channel_type: 'channel',
      },
    };

    for (const retry of [undefined, 1, 2]) {
      const response = await driver.event(body, retry);
      expect(response.status).toBe(200);
    }
    await replies(root, 2);
    await sandbox.idle();

    const id = conversationIdFor('kernel_probe', PROBE, root);
    const stored = (await store.listMessages(id)).filter((m) => m.text === 'only on the mobile app');
    expect(stored).toHaveLength(1);
    expect(stored[0]?.deliveredInTurn).toBe(2);
    expect(await botReplies(root)).toEqual([
      'probe turn 1 got 1 message(s)',
      'probe turn 2 got 1 message(s)',
    ]);
    await closeAndFinish(root);
  });
});
