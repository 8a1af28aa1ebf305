import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import type { ManualClock } from '../../local/stepfunctions/clock.ts';
import {
  KERNEL_APPROVAL_PROBE_MODULE,
  PROBE_APPROVAL_SECONDS,
  PROBE_DECISION,
} from '../fixtures/approval-probe.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';
import { eventually } from '../support/sandbox-http.ts';

/**
 * The approval wait end to end (statemachines/approval-wait.ts), in the sandbox's real local
 * Step Functions runtime, through the kernel_approval_probe workflow: buttons posted, presses
 * sent as signed `block_actions` through the fake Slack, the execution woken (or not) by the
 * Router, and the wait running out when nobody decides.
 */

const CHANNEL = 'C_APPROVALS';
const WORKFLOW = 'kernel_approval_probe';
let sandbox: Sandbox;
let store: DynamoConversationStore;

beforeAll(async () => {
  sandbox = await workerSandbox({
    // The probe waits 10,000 s for a decision: 10 s of the sandbox's clock, which runs out
    // when a test moves it (nobody deciding in time is a matter of order, not of real time).
    timeScale: 0.001,
    clock: 'manual',
    modules: [KERNEL_APPROVAL_PROBE_MODULE],
    config: { channels: { approvalProbe: CHANNEL } },
    logLevel: 'SILENT',
  });
  store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
});
afterAll(async () => sandbox?.stop());

const driver = sandboxDriver(() => sandbox);
const { api } = driver;

type Button = { action_id: string; value: string; text: { text: string } };
type Execution = { status: string; events: { type: string; stateName?: string }[] };

const report = (text: string) => driver.post(CHANNEL, 'U_REPORTER', text);
const botReplies = async (root: string) => (await driver.messages(CHANNEL, root)).filter((m) => m.bot);
const execution = (root: string) =>
  api<Execution>(`/sandbox/executions/${conversationIdFor(WORKFLOW, CHANNEL, root)}`);
const conversation = (root: string) =>
  store.getConversation(conversationIdFor(WORKFLOW, CHANNEL, root), { consistent: true });
const ephemeralsTo = (user: string) => sandbox.slack.workspace.ephemerals().filter((e) => e.user === user);

/** The buttons of a message, if it still has them. */
function buttonsOf(ts: string): Button[] | undefined {
  const blocks = (sandbox.slack.workspace.find(CHANNEL, ts).blocks ?? []) as {
    type: string;
    elements?: Button[];
  }[];
  return blocks.find((block) => block.type === 'actions')?.elements;
}

/** The question with its buttons, as soon as the bot has posted it. */
async function question(root: string): Promise<{ ts: string; approve: Button; reject: Button }> {
  const [posted] = await eventually(
    () => botReplies(root),
    (list) => list.some((m) => m.text === 'May the probe go on?'),
    'the question with its buttons',
  );
  const ts = posted?.ts ?? '';
  const [approve, reject] = buttonsOf(ts) ?? [];
  if (approve === undefined || reject === undefined) throw new Error('the question has no buttons');
  return { ts, approve, reject };
}

async function press(user: string, messageTs: string, button: Button): Promise<void> {
  const response = await driver.press({
    channel: CHANNEL,
    user,
    messageTs,
    actionId: button.action_id,
    value: button.value,
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

const finished = (root: string) =>
  eventually(
    () => execution(root),
    (e) => e.status !== 'RUNNING',
    'the execution to end',
  );

describe('an approval wait in the sandbox (kernel_approval_probe)', () => {
  it('is woken by an authorized press with its decision, after an unauthorized press changed nothing', async () => {
    const root = await report('please deploy the hotfix');
    const { ts, approve, reject } = await question(root);
    expect(approve.text.text).toBe('Approve');
    expect(JSON.parse(approve.value)).toMatchObject({ kind: PROBE_DECISION, decision: 'approve' });

    // Someone who is not an approver: told so, nothing stored, the execution still waits.
    await press('U_THIRD', ts, approve);
    const refused = await eventually(
      async () => ephemeralsTo('U_THIRD'),
      (list) => list.length === 1,
      'an ephemeral to the bystander',
    );
    expect(refused[0]?.text).toContain('Only approver may decide approve_probe');
    await sandbox.idle();
    expect((await conversation(root))?.decisions ?? []).toEqual([]);
    expect((await execution(root)).status).toBe('RUNNING');
    expect(buttonsOf(ts)).toHaveLength(2);

    await press('U_DEV2', ts, reject);
    const done = await finished(root);

    expect(done.status).toBe('SUCCEEDED');
    const replies = (await botReplies(root)).map((m) => m.text);
    expect(replies).toContain('probe decision: reject by U_DEV2');
    // The decision's line, once, in the thread the buttons are in.
    expect(replies.filter((t) => t.includes(':x: Rejected by <@U_DEV2> at <!date^'))).toHaveLength(1);
    const stored = await conversation(root);
    expect(stored?.decisions).toEqual([
      expect.objectContaining({ kind: PROBE_DECISION, decision: 'reject', by: 'U_DEV2', messageTs: ts }),
    ]);
    expect(stored?.approvals?.[PROBE_DECISION]).toMatchObject({ woken: true, decided: { by: 'U_DEV2' } });
    expect(buttonsOf(ts)).toBeUndefined();
    const waits = done.events.filter(
      (e) => e.type === 'TaskStateEntered' && e.stateName === 'Wait for probe approval',
    );
    expect(waits).toHaveLength(1);
    expect(done.events.some((e) => e.stateName === 'Expire probe approval')).toBe(false);

    // A second press on the old message changes nothing and is told who decided.
    await press('U_DEV', ts, approve);
    const again = await eventually(
      async () => ephemeralsTo('U_DEV'),
      (list) => list.length === 1,
      'an ephemeral about the decision taken',
    );
    expect(again[0]?.text).toContain('already decided: Rejected by <@U_DEV2>');
    expect((await conversation(root))?.decisions).toHaveLength(1);
  });

  it('expires when nobody decides in time: says so in the thread and the message, and refuses a late press', async () => {
    const root = await report('rotate the database password');
    const { ts, approve } = await question(root);
    await eventually(
      () => execution(root),
      (e) => {
        // Its timeout is armed as the Task starts.
        const entered = e.events.findIndex(
          (ev) => ev.type === 'TaskStateEntered' && ev.stateName === 'Wait for probe approval',
        );
        return entered >= 0 && e.events.slice(entered).some((ev) => ev.type === 'TaskStarted');
      },
      'the wait for a decision to start',
    );

    // Nobody decides for the whole wait.
    await (sandbox.stepFunctions.clock as ManualClock).advance(
      PROBE_APPROVAL_SECONDS * 1000 * sandbox.timeScale,
    );
    const done = await finished(root);

    expect(done.status).toBe('SUCCEEDED');
    const texts = (await botReplies(root)).map((m) => m.text);
    expect(texts.some((t) => t.startsWith('probe approval expired at '))).toBe(true);
    expect(
      done.events.some((e) => e.type === 'TaskStateEntered' && e.stateName === 'Expire probe approval'),
    ).toBe(true);
    expect(buttonsOf(ts)).toBeUndefined();
    expect(JSON.stringify(sandbox.slack.workspace.find(CHANNEL, ts).blocks)).toContain(
      ':hourglass: Expired: nobody decided by <!date^',
    );
    expect((await conversation(root))?.approvals?.[PROBE_DECISION]?.expiredAt).toBeDefined();

    const before = ephemeralsTo('U_DEV').length;
    await press('U_DEV', ts, approve);
    const late = await eventually(
      async () => ephemeralsTo('U_DEV'),
      (list) => list.length === before + 1,
      'an ephemeral about the expiry',
    );
    expect(late.at(-1)?.text).toContain('expired');
    expect((await conversation(root))?.decisions ?? []).toEqual([]);
  });
});
