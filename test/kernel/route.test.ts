import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { drain } from '../../lambdas/kernel/drain.ts';
import type { InboxAction, InboxSlashCommand } from '../../lambdas/kernel/inbox.ts';
import type { Executions, StartResult, WakeResult } from '../../lambdas/kernel/ports.ts';
import { registerWait } from '../../lambdas/kernel/register-wait.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { RouteOutcome } from '../../lambdas/kernel/route-types.ts';
import type { WakeOutput } from '../../lambdas/kernel/tasks.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { BUG_REGISTRATION } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { slackMessage } from '../support/inbox-message.ts';
import { routerDeps } from '../support/router-deps.ts';

class RecordingExecutions implements Executions {
  readonly starts: { arn: string; name: string; input: unknown }[] = [];
  readonly wakes: { token: string; output: WakeOutput }[] = [];
  private readonly names = new Set<string>();
  readonly finished = new Set<string>();

  async start(arn: string, name: string, input: unknown): Promise<StartResult> {
    const executionArn = `${arn.replace(':stateMachine:', ':execution:')}:${name}`;
    if (this.names.has(name)) return { status: 'already_started', executionArn };
    this.names.add(name);
    this.starts.push({ arn, name, input });
    return { status: 'started', executionArn };
  }

  async wake(token: string, output: WakeOutput): Promise<WakeResult> {
    if (this.finished.has(token)) return 'already_woken';
    this.finished.add(token);
    this.wakes.push({ token, output });
    return 'woken';
  }
}

const BUG = BUG_REGISTRATION;
const PRD: WorkflowRegistration = {
  workflow: 'requirements_interview',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:RequirementsInterview',
  triggers: [{ type: 'slash_command', command: '/prd' }, { type: 'mention' }],
  ownerRole: 'requester',
  othersRole: 'participant',
  closeOnIntent: true,
};

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let executions: RecordingExecutions;
let seq = 0;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db.close());
beforeEach(() => {
  executions = new RecordingExecutions();
  seq += 1;
});

const deps = () =>
  routerDeps({
    store,
    executions,
    clock: { now: () => new Date('2015-11-21T12:00:00Z') },
    workflows: [BUG, PRD],
    botUserId: 'U_BOT',
  });

const message = slackMessage;

/** A unique thread root per test, so tests share one table without sharing conversations. */
const root = () => `17000${String(seq).padStart(5, '0')}.000100`;

async function startBug(): Promise<{ conversationId: string; rootTs: string }> {
  const rootTs = root();
  const outcome = await routeEnvelope(message({ ts: rootTs }), deps());
  if (outcome.type !== 'started') throw new Error(`expected a start, got ${JSON.stringify(outcome)}`);
  return { conversationId: outcome.conversationId, rootTs };
}

function expectIgnored(outcome: RouteOutcome, reason: RegExp) {
  expect(outcome.type).toBe('ignored');
  if (outcome.type === 'ignored') expect(outcome.reason).toMatch(reason);
}

describe('Router', () => {
  it('starts a conversation, named after its id, for a top-level message in the bug-reports channel', async () => {
    const { conversationId, rootTs } = await startBug();

    expect(executions.starts).toHaveLength(1);
    expect(executions.starts[0]).toMatchObject({ arn: BUG.stateMachineArn, name: conversationId });
    expect(executions.starts[0]?.input).toMatchObject({
      conversationId,
      channel: 'C_BUGS',
      threadTs: rootTs,
      turn: 0,
    });
    const conversation = await store.getConversation(conversationId, { consistent: true });
    expect(conversation).toMatchObject({
      workflow: 'bug_investigation',
      ownerId: 'U_REPORTER',
      status: 'active',
    });
    expect(conversation?.executionName).toBe(conversationId);
    const messages = await store.pendingMessages(conversationId);
    expect(messages.map((m) => [m.senderType, m.text])).toEqual([['reporter', 'checkout fails with a 500']]);
  });

  it('counts a redelivered start as started and stores the report once', async () => {
    const rootTs = root();
    const first = await routeEnvelope(message({ ts: rootTs }), deps());
    const again = await routeEnvelope(message({ ts: rootTs }), deps());

    expect(first).toMatchObject({ type: 'started', execution: 'started' });
    expect(again).toMatchObject({ type: 'started', execution: 'already_started' });
    if (first.type !== 'started') return;
    expect(await store.listMessages(first.conversationId)).toHaveLength(1);
  });

  it("routes the reporter's reply in their thread to the conversation as the reporter's", async () => {
    const { conversationId, rootTs } = await startBug();

    const outcome = await routeEnvelope(
      message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'on Safari' }),
      deps(),
    );

    expect(outcome).toMatchObject({
      type: 'stored',
      conversationId,
      senderType: 'reporter',
      stored: 'stored',
    });
  });

  it("ignores a third party's reply in the reporter's thread (I5)", async () => {
    const { conversationId, rootTs } = await startBug();

    const outcome = await routeEnvelope(
      message({ ts: `${rootTs}1`, threadTs: rootTs, user: 'U_OTHER' }),
      deps(),
    );

    expectIgnored(outcome, /U_OTHER is not heard in thread origin/);
    expect(await store.listMessages(conversationId)).toHaveLength(1);
  });

  it("ignores the bot's own messages", async () => {
    const outcome = await routeEnvelope(message({ ts: root(), user: 'U_BOT' }), deps());

    expectIgnored(outcome, /bot's own/);
    expect(executions.starts).toHaveLength(0);
  });

  it('ignores top-level messages in channels no workflow listens to, and replies in unknown threads', async () => {
    expectIgnored(
      await routeEnvelope(message({ ts: root(), channel: 'C_RANDOM' }), deps()),
      /starts no workflow/,
    );
    expectIgnored(
      await routeEnvelope(message({ ts: `${root()}9`, threadTs: '1600000000.000001' }), deps()),
      /no conversation owns/,
    );
    expect(executions.starts).toHaveLength(0);
  });

  it('records "never mind" from the reporter as a close and wakes the open wait with it', async () => {
    const { conversationId, rootTs } = await startBug();
    await drain({ conversationId, turn: 1 }, { store });
    await registerWait(
      { conversationId, taskToken: 'token-close', accepts: ['reporter'], phase: 'awaiting_reporter' },
      { store, executions, clock: deps().clock },
    );

    const outcome = await routeEnvelope(
      message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'never mind' }),
      deps(),
    );

    expect(outcome).toMatchObject({
      type: 'stored',
      messageType: 'close',
      wake: { outcome: 'woken', reason: 'close' },
    });
    expect((await store.getConversation(conversationId, { consistent: true }))?.closeRequested).toBe(true);
    expect(executions.wakes).toEqual([{ token: 'token-close', output: { woken: 'close' } }]);
  });

  it('does not take a bug description that starts with "close" for a close intent', async () => {
    const { conversationId, rootTs } = await startBug();

    const outcome = await routeEnvelope(
      message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'closing the modal crashes the tab' }),
      deps(),
    );

    expect(outcome).toMatchObject({ type: 'stored', messageType: 'message' });
    expect((await store.getConversation(conversationId, { consistent: true }))?.closeRequested).toBe(false);
  });

  it('leaves a developer message pending, without waking, while the wait accepts only the reporter', async () => {
    const { conversationId } = await startBug();
    await drain({ conversationId, turn: 1 }, { store });
    await store.linkThread({
      conversationId,
      ownerId: 'U_REPORTER',
      anchor: {
        name: 'summary',
        channel: 'C_SUMMARIES',
        threadTs: `${root()}5`,
        ownerRole: null,
        othersRole: 'developer',
      },
    });
    await registerWait(
      { conversationId, taskToken: 'token-rep', accepts: ['reporter'], phase: 'awaiting_reporter' },
      { store, executions, clock: deps().clock },
    );

    const outcome = await routeEnvelope(
      message({
        ts: `${root()}6`,
        channel: 'C_SUMMARIES',
        threadTs: `${root()}5`,
        user: 'U_DEV',
        text: 'try staging',
      }),
      deps(),
    );

    expect(outcome).toMatchObject({
      type: 'stored',
      senderType: 'developer',
      wake: { outcome: 'nothing_accepted' },
    });
    expect(executions.wakes).toEqual([]);
    expect((await store.pendingMessages(conversationId)).map((m) => m.text)).toEqual(['try staging']);
  });

  it('starts a conversation without a thread for a slash command, keyed by its trigger id', async () => {
    const command: InboxSlashCommand = {
      kind: 'slash_command',
      eventId: `13345224609.738474920.${seq}`,
      channel: 'C_PRODUCT',
      user: 'U_PM',
      command: '/prd',
      text: 'a shared team calendar',
      ts: '1700000000.123456',
      receivedAt: '2015-11-21T12:00:00Z',
    };

    const outcome = await routeEnvelope(command, deps());

    expect(outcome).toMatchObject({ type: 'started', workflow: 'requirements_interview' });
    expect(executions.starts[0]?.name).toMatch(/^requirements-interview-C_PRODUCT-13345224609-738474920-/);
    expect(executions.starts[0]?.input).not.toHaveProperty('threadTs');
  });

  it('starts no interview for `/prd help` or an empty `/prd` that reached it', async () => {
    for (const text of ['help', '']) {
      const command: InboxSlashCommand = {
        kind: 'slash_command',
        eventId: `13345224609.738474921.${seq}${text}`,
        channel: 'C_PRODUCT',
        user: 'U_PM',
        command: '/prd',
        text,
        ts: '1700000000.123457',
        receivedAt: '2015-11-21T12:00:00Z',
      };

      const outcome = await routeEnvelope(command, deps());

      expect(outcome).toMatchObject({
        type: 'ignored',
        reason: expect.stringMatching(/help|missing_argument/),
      });
    }
    expect(executions.starts).toEqual([]);
  });

  it("stores a button press on the conversation's message as an action", async () => {
    const { conversationId, rootTs } = await startBug();
    const action: InboxAction = {
      kind: 'action',
      eventId: `trigger-${seq}`,
      channel: 'C_BUGS',
      user: 'U_REPORTER',
      actionId: 'approve_fix',
      value: 'yes',
      messageTs: `${rootTs}2`,
      threadTs: rootTs,
      ts: '1700000099.000001',
      receivedAt: '2015-11-21T12:00:00Z',
    };

    const outcome = await routeEnvelope(action, deps());

    expect(outcome).toMatchObject({ type: 'stored', conversationId, messageType: 'action' });
    const [, stored] = await store.listMessages(conversationId);
    expect(stored).toMatchObject({ actionId: 'approve_fix', actionValue: 'yes' });
  });
});

describe('RegisterWait and Drain', () => {
  it('wakes the wait at once when the reporter answered before it began', async () => {
    const { conversationId, rootTs } = await startBug();
    await drain({ conversationId, turn: 1 }, { store });
    await routeEnvelope(message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'it is Safari 17' }), deps());

    const result = await registerWait(
      { conversationId, taskToken: 'token-early', accepts: ['reporter'], phase: 'awaiting_reporter' },
      { store, executions, clock: deps().clock },
    );

    expect(result).toMatchObject({ outcome: 'woken', reason: 'message' });
    expect(executions.wakes).toEqual([{ token: 'token-early', output: { woken: 'message' } }]);
  });

  it('takes the conversation from the write that opens the wait: a close requested before it wakes it, with no read of the record', async () => {
    const { conversationId } = await startBug();
    await drain({ conversationId, turn: 1 }, { store });
    await store.requestClose(conversationId);
    const requests: string[] = [];
    const stop = db.observe((operation) => requests.push(operation));

    const result = await registerWait(
      { conversationId, taskToken: 'token-closed', accepts: ['reporter'], phase: 'awaiting_reporter' },
      { store, executions, clock: deps().clock },
    ).finally(stop);

    expect(result).toMatchObject({ outcome: 'woken', reason: 'close' });
    expect(executions.wakes).toEqual([{ token: 'token-closed', output: { woken: 'close' } }]);
    // The wait's write returned the record (its close): no GetItem, and nothing pending to query.
    expect(requests).toEqual(['UpdateItem']);
  });

  it('hands each pending message to one turn, and a retried Drain of that turn returns the same set', async () => {
    const { conversationId, rootTs } = await startBug();
    await routeEnvelope(message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'second' }), deps());

    const first = await drain({ conversationId, turn: 1 }, { store });
    const retried = await drain({ conversationId, turn: 1 }, { store });
    const next = await drain({ conversationId, turn: 2 }, { store });

    expect(first.messages.map((m) => m.text)).toEqual(['checkout fails with a 500', 'second']);
    expect(retried.messages).toEqual(first.messages);
    expect(next.count).toBe(0);
  });

  it('cuts long texts in the payload and says so', async () => {
    const { conversationId, rootTs } = await startBug();
    await routeEnvelope(message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'x'.repeat(5_000) }), deps());

    const out = await drain({ conversationId, turn: 1 }, { store });

    expect(out.messages[1]).toMatchObject({ truncated: true });
    expect(out.messages[1]?.text).toHaveLength(2_000);
  });

  it('clears the open wait when draining, so a later message does not wake a finished task', async () => {
    const { conversationId, rootTs } = await startBug();
    await drain({ conversationId, turn: 1 }, { store });
    await registerWait(
      { conversationId, taskToken: 'token-old', accepts: 'any', phase: 'awaiting_dev' },
      { store, executions, clock: deps().clock },
    );
    await drain({ conversationId, turn: 2 }, { store });

    const outcome = await routeEnvelope(message({ ts: `${rootTs}1`, threadTs: rootTs }), deps());

    expect(outcome).toMatchObject({ type: 'stored', wake: { outcome: 'no_wait' } });
    expect(executions.wakes).toEqual([]);
  });
});
