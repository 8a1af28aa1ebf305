import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BugHarness,
  type BugResult,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  passSlaDeadline,
  REPORTER,
  startBugHarness,
  turn,
} from './bug-harness.ts';

/**
 * Approvals in the sandbox: the escalation's Acknowledge button, pressed
 * through the fake Slack as a signed `block_actions`, by on call, by someone else, twice, and
 * on an earlier escalation's message.
 */

let h: BugHarness;

beforeAll(async () => {
  // Low severity: 200 minutes, on the manual clock: the deadline comes when a test moves the
  // clock, after its presses.
  h = await startBugHarness(
    {
      bugInvestigation: {
        sla: { acknowledgeMinutes: { critical: 1, high: 1, medium: 1, low: 200 }, maxReminders: 2 },
      },
    },
    { clock: 'manual' },
  );
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const ONCALL = 'U_ONCALL';
const THIRD = 'U_THIRD';

const escalation = (summary: string): BugResult => ({
  action: 'escalate',
  summary,
  confidence: 30,
  severity: 'low',
});

type Button = { action_id: string; value: string };

/** The Acknowledge button of a message in the developers' channel, if it still has one. */
function buttonOf(ts: string): Button | undefined {
  const message = h.sandbox.slack.workspace.find(CHANNELS.developers, ts);
  const blocks = (message.blocks ?? []) as { type: string; elements?: Button[] }[];
  return blocks.find((block) => block.type === 'actions')?.elements?.[0];
}

async function press(user: string, ts: string, button: Button): Promise<void> {
  const response = await h.driver.press({
    channel: CHANNELS.developers,
    user,
    messageTs: ts,
    actionId: button.action_id,
    value: button.value,
  });
  expect(response.status).toBe(200);
}

const ephemeralsTo = (user: string) => h.sandbox.slack.workspace.ephemerals().filter((e) => e.user === user);

async function escalationTsOf(bug: string, count = 1): Promise<string[]> {
  const messages = await h.eventually(
    () => h.messages(CHANNELS.developers),
    (list) => list.filter((m) => m.bot && JSON.stringify(m).includes(bug)).length >= count,
    `${count} escalation(s) of ${bug}`,
  );
  return messages.filter((m) => m.bot && JSON.stringify(m).includes(bug)).map((m) => m.ts);
}

const slaOf = async (bug: string) => {
  const list = await h.driver.api<{ executions: { name: string; stateMachine: string; status: string }[] }>(
    '/sandbox/executions',
  );
  return list.executions.filter((e) => e.name.startsWith(bug) && e.stateMachine.startsWith('SlaTracking'));
};

describe('the escalation Acknowledge button', () => {
  it('acknowledges for on call, refuses others and a second press, and stops the reminders', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'Invoices are emailed twice');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, escalation('Invoice mailer runs twice per schedule.')));
    const [ts = ''] = await escalationTsOf(bug);
    const button = await h.eventually(
      async () => buttonOf(ts),
      (b) => b !== undefined,
      'the Acknowledge button',
    );
    expect(button?.value).toContain('acknowledge_escalation');
    // SlackPost opens the approval just after posting: a press before that would be "not current".
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.approvals?.acknowledge_escalation?.messageTs === ts,
      'the approval to be open',
    );

    // Someone who is neither on call nor anything else: nothing changes, they are told who may.
    await press(THIRD, ts, button as Button);
    const refused = await h.eventually(
      async () => ephemeralsTo(THIRD),
      (list) => list.length === 1,
      'an ephemeral to the bystander',
    );
    expect(refused[0]?.text).toContain('on_call');
    expect((await h.store.getConversation(bug, { consistent: true }))?.decisions ?? []).toEqual([]);
    expect(buttonOf(ts)).toBeDefined();

    await press(ONCALL, ts, button as Button);
    const decided = await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => (c?.decisions ?? []).length === 1,
      'the decision to be stored',
    );
    expect(decided?.decisions?.[0]).toMatchObject({
      kind: 'acknowledge_escalation',
      decision: 'acknowledge',
      by: ONCALL,
      messageTs: ts,
    });
    await h.eventually(
      async () => buttonOf(ts),
      (b) => b === undefined,
      'the buttons to be replaced',
    );
    expect(h.sandbox.slack.workspace.find(CHANNELS.developers, ts).text).toContain('Invoice mailer');
    const thread = await h.eventually(
      () => h.messages(CHANNELS.developers, ts),
      (list) => list.some((m) => m.bot && m.text.includes(`:eyes: Acknowledged by <@${ONCALL}>`)),
      'the acknowledgement in the thread',
    );
    expect(thread.filter((m) => m.text.includes('Acknowledged by')).length).toBe(1);

    // The same person presses again (the old message still in their client): told, nothing stored.
    await press(ONCALL, ts, button as Button);
    const again = await h.eventually(
      async () => ephemeralsTo(ONCALL),
      (list) => list.length === 1,
      'an ephemeral about the earlier decision',
    );
    expect(again[0]?.text).toContain('already decided');
    expect((await h.store.getConversation(bug, { consistent: true }))?.decisions).toHaveLength(1);

    // SLA tracking sees the decision at its deadline: it stops without a reminder.
    await passSlaDeadline(h, bug, 200 * 60);
    const sla = await h.eventually(
      () => slaOf(bug),
      (list) => list.length === 1 && list[0]?.status !== 'RUNNING',
      'SLA tracking to stop',
    );
    expect(sla[0]?.status).toBe('SUCCEEDED');
    const texts = (await h.messages(CHANNELS.developers, ts)).map((m) => m.text);
    expect(texts.some((t) => t.includes('SLA reminder') || t.includes('SLA missed'))).toBe(false);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });

  it("refuses an earlier escalation's button once a later one is open", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'Reports page shows yesterday');
    const bug = bugIdFor(report);
    h.script(bug, [
      ...turn(bug, escalation('Reports cache is not invalidated.')),
      ...turn(bug, escalation('Reports cache: the invalidation job is failing too.')),
    ]);
    const [first = ''] = await escalationTsOf(bug);
    const stale = await h.eventually(
      async () => buttonOf(first),
      (b) => b !== undefined,
      'the first button',
    );
    // A developer's answer runs another turn, which escalates again: a new approval replaces the first.
    await h.post(CHANNELS.developers, DEVELOPER, 'the job logs show timeouts', first);
    const both = await escalationTsOf(bug, 2);
    const second = both.find((ts) => ts !== first) ?? '';
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.approvals?.acknowledge_escalation?.messageTs === second,
      'the second approval to be open',
    );

    const before = ephemeralsTo(ONCALL).length;
    await press(ONCALL, first, stale as Button);
    const told = await h.eventually(
      async () => ephemeralsTo(ONCALL),
      (list) => list.length === before + 1,
      'an ephemeral about the stale button',
    );
    expect(told.at(-1)?.text).toContain('no longer current');
    expect((await h.store.getConversation(bug, { consistent: true }))?.decisions ?? []).toEqual([]);
    expect(buttonOf(second)).toBeDefined();
    h.script(bug, turn(bug, findings('closing')));
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });
});
