import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoReconcilerStore } from '../../lambdas/adapters/dynamo-reconciler.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { Conversation } from '../../lambdas/kernel/model.ts';
import type { Executions, StartResult, WakeResult } from '../../lambdas/kernel/ports.ts';
import { ReconcilerSettings, reconcile } from '../../lambdas/kernel/reconcile.ts';
import type { WakeOutput } from '../../lambdas/kernel/tasks.ts';
import { BUG_REGISTRATION, bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * the reconciler against dynalite. A conversation the Router stored but
 * could not start is started; a wait with an accepted message pending too long is woken;
 * what keeps failing is marked failed and its owner told, once.
 */

const NOW = new Date('2015-11-23T12:00:00Z');
const LONG_AGO = '2015-11-23T11:00:00.000Z';
const JUST_NOW = '2015-11-23T11:59:30.000Z';

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let reconcilerStore: DynamoReconcilerStore;
let n = 0;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  reconcilerStore = new DynamoReconcilerStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db?.close());

/** Step Functions as the reconciler sees it: starts and wakes recorded, or failing. */
function fakeExecutions(options: { failStarts?: boolean; failWakes?: boolean } = {}) {
  const starts: { arn: string; name: string; input: unknown }[] = [];
  const wakes: { token: string; output: WakeOutput }[] = [];
  const executions: Executions = {
    async start(arn, name, input): Promise<StartResult> {
      if (options.failStarts)
        throw Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable' });
      starts.push({ arn, name, input });
      return { status: 'started', executionArn: `${arn}:${name}` };
    },
    async wake(token, output): Promise<WakeResult> {
      if (options.failWakes) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      wakes.push({ token, output });
      return 'woken';
    },
  };
  return { executions, starts, wakes };
}

function run(executions: Executions, notified: unknown[] = []) {
  return reconcile({
    store,
    reconciler: reconcilerStore,
    executions,
    workflows: [BUG_REGISTRATION],
    notify: async (conversation, where) => {
      notified.push({ id: conversation.id, ...where });
    },
    clock: { now: () => NOW },
    settings: ReconcilerSettings.parse({ olderThanSeconds: 300, maxRepairs: 2 }),
  });
}

/** A conversation the Router created and stored the opening message of, then could not start. */
async function halfStarted(createdAt = LONG_AGO): Promise<Conversation> {
  n += 1;
  const conversation = bugConversation(`half-${n}`, { phase: 'starting', createdAt, updatedAt: createdAt });
  await store.createConversation(conversation);
  await store.putMessage({
    conversationId: conversation.id,
    ts: `1763890000.00000${n}`,
    channel: 'C_BUGS',
    threadTs: `1763890000.00000${n}`,
    senderType: 'reporter',
    senderId: 'U_REPORTER',
    messageType: 'message',
    text: 'checkout is broken',
    receivedAt: createdAt,
  });
  return conversation;
}

/** A conversation waiting for its reporter, with a reporter message pending since `receivedAt`. */
async function waitingWithPending(receivedAt: string): Promise<Conversation> {
  n += 1;
  const conversation = bugConversation(`waiting-${n}`);
  await store.createConversation(conversation);
  await store.openWait(
    conversation.id,
    { waitId: `w-${n}`, taskToken: `token-${n}`, accepts: ['reporter'], since: LONG_AGO },
    'awaiting_reporter',
  );
  await store.putMessage({
    conversationId: conversation.id,
    ts: `1763890100.00000${n}`,
    channel: 'C_BUGS',
    threadTs: '1763890000.000001',
    senderType: 'reporter',
    senderId: 'U_REPORTER',
    messageType: 'message',
    text: 'it is Safari',
    receivedAt,
  });
  return conversation;
}

describe('the reconciler', () => {
  it('starts a conversation the Router stored but could not start, with the input the Router would give', async () => {
    const conversation = await halfStarted();
    const sfn = fakeExecutions();

    const repairs = await run(sfn.executions);

    expect(repairs).toContainEqual({ conversationId: conversation.id, kind: 'start', outcome: 'started' });
    expect(sfn.starts.find((s) => s.name === conversation.id)).toEqual({
      arn: BUG_REGISTRATION.stateMachineArn,
      name: conversation.id,
      input: {
        conversationId: conversation.id,
        workflow: 'bug_investigation',
        channel: 'C_BUGS',
        threadTs: expect.stringMatching(/^1763890000/),
        ownerId: 'U_REPORTER',
        turn: 0,
      },
    });
    expect((await store.getConversation(conversation.id))?.executionName).toBe(conversation.id);
    // Started now: the next sweep leaves it alone.
    const again = await run(fakeExecutions().executions);
    expect(again.map((r) => r.conversationId)).not.toContain(conversation.id);
  });

  it('leaves a start younger than the threshold to the Router', async () => {
    const conversation = await halfStarted(JUST_NOW);

    const repairs = await run(fakeExecutions().executions);

    expect(repairs.map((r) => r.conversationId)).not.toContain(conversation.id);
  });

  it('wakes a wait whose accepted message has been pending longer than the threshold', async () => {
    const conversation = await waitingWithPending(LONG_AGO);
    const sfn = fakeExecutions();

    const repairs = await run(sfn.executions);

    expect(repairs).toContainEqual({ conversationId: conversation.id, kind: 'wake', outcome: 'woken' });
    expect(sfn.wakes).toContainEqual({
      token: conversation.id.replace('waiting', 'token'),
      output: { woken: 'message' },
    });
  });

  it('does not wake for a message that just arrived (the Router is still on it)', async () => {
    const conversation = await waitingWithPending(JUST_NOW);

    const repairs = await run(fakeExecutions().executions);

    expect(repairs.map((r) => r.conversationId)).not.toContain(conversation.id);
  });

  it('retries a start that fails, then fails the conversation visibly and tells its owner once', async () => {
    const conversation = await halfStarted();
    const failing = fakeExecutions({ failStarts: true });
    const notified: unknown[] = [];

    const first = await run(failing.executions, notified);
    const second = await run(failing.executions, notified);
    const third = await run(failing.executions, notified);

    const mine = (repairs: Awaited<ReturnType<typeof run>>) =>
      repairs.find((r) => r.conversationId === conversation.id);
    expect(mine(first)).toMatchObject({
      outcome: 'retry_later',
      error: 'ServiceUnavailable: service unavailable',
    });
    expect(mine(second)).toMatchObject({ outcome: 'failed_visibly' });
    // Failed: no longer `active`, so no further sweep picks it up or tells anyone again.
    expect(mine(third)).toBeUndefined();
    expect(notified.filter((x) => (x as { id: string }).id === conversation.id)).toEqual([
      { id: conversation.id, channel: 'C_BUGS', threadTs: expect.stringMatching(/^1763890000/) },
    ]);
    expect((await store.getConversation(conversation.id))?.status).toBe('failed');
  });
});
