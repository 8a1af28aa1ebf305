import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText } from '../support/scripted-model.ts';
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
 * The long-running parts of a bug conversation: continue-as-new hands the conversation to a
 * fresh execution without losing a message or a wait, and SLA tracking reminds on-call of
 * an escalation nobody acknowledged.
 */

let h: BugHarness;

beforeAll(async () => {
  // The SLA deadlines come when a test moves the manual clock: after a developer's answer,
  // or one level after the other.
  h = await startBugHarness(
    {
      bugInvestigation: {
        continueAsNewAfterTurns: 2,
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

const conversation = (bugId: string) => h.store.getConversation(bugId, { consistent: true });
const waitsIn = (bugId: string, phase: string) =>
  h.eventually(
    () => conversation(bugId),
    (c) => c?.wait !== undefined && c.phase === phase,
    `${bugId} to wait in ${phase}`,
  );
const botTexts = async (channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

describe('long-running bug conversations', () => {
  it('hands the conversation to a fresh execution after the configured turns, losing no message', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'The CSV export drops the last row every time');
    const bug = bugIdFor(report);
    const prompts: string[] = [];
    h.script(bug, [
      ...turn(bug, findings('CSV export drops the last row.')),
      ...turn(bug, findings('CSV export: off-by-one in the writer.'), (_h, p) => prompts.push(p)),
      ...turn(bug, findings('CSV export: fixed by flushing the writer.'), (_h, p) => prompts.push(p)),
    ]);
    const summary = await h.eventually(
      () => h.messages(CHANNELS.summaries),
      (messages) => messages.some((m) => m.text.includes('CSV export drops the last row.')),
      'the findings',
    );
    const thread = summary.find((m) => m.text.includes('CSV export drops the last row.'))?.ts ?? '';
    await waitsIn(bug, 'awaiting_dev');

    // Turn 2 runs in the first execution.
    await h.post(CHANNELS.summaries, DEVELOPER, 'look at the writer', thread);
    await h.eventually(
      () => botTexts(CHANNELS.summaries, thread),
      (t) => t.some((x) => x.includes('off-by-one')),
      'turn 2',
    );
    await waitsIn(bug, 'awaiting_dev');
    // The message that ends this wait finds the turn budget spent: the first execution hands
    // over at the top of its loop, and the second one's first Drain takes the pending message.
    await h.post(CHANNELS.summaries, DEVELOPER, 'flushing fixes it', thread);
    await h.eventually(
      () => botTexts(CHANNELS.summaries, thread),
      (t) => t.some((x) => x.includes('flushing the writer')),
      'turn 3, in the second execution',
    );
    expect((await conversation(bug))?.executionName).toBe(`${bug}-2`);

    const first = await h.execution(bug);
    expect(first.status).toBe('SUCCEEDED');
    expect(first.events.some((e) => e.stateName === 'Hand over to a fresh execution')).toBe(true);
    const second = await h.execution(`${bug}-2`);
    expect(second.status).toBe('RUNNING');
    expect(second.events.some((e) => e.stateName === 'Acknowledge report')).toBe(false);
    // Both started through the workflow's alias (the Router's start and the hand-over's), and
    // the hand-over says the version of the state it carries.
    const sfn = h.sandbox.stepFunctions;
    const started = [bug, `${bug}-2`].map((name) => {
      const summary = sfn.listExecutions().find((e) => e.name === name);
      if (summary === undefined) throw new Error(`no execution ${name}`);
      return sfn.describeExecution(summary.executionArn);
    });
    expect(started.map((e) => e.stateMachineAliasArn)).toEqual([
      `${started[0]?.stateMachineArn}:live`,
      `${started[0]?.stateMachineArn}:live`,
    ]);
    expect(started.map((e) => e.stateMachineVersionArn)).toEqual([
      `${started[0]?.stateMachineArn}:1`,
      `${started[0]?.stateMachineArn}:1`,
    ]);
    expect(JSON.parse(started[1]?.input ?? '{}')).toMatchObject({ handoverVersion: 1 });
    expect(prompts[1]).toContain(
      '"from":"U_DEV","role":"developer","verified":true,"text":"flushing fixes it',
    );
    // The agent resumed its session across the executions: every request opens with the report.
    const openings = new Set(
      h.requestsOf(bug).map((r) => lastUserText({ ...r.body, messages: r.body.messages.slice(0, 1) })),
    );
    expect(openings.size).toBe(1);
    expect(h.requestsOf(bug).at(-1)?.body.messages.length).toBeGreaterThan(6);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await h.eventually(
      () => h.execution(`${bug}-2`),
      (e) => e.status !== 'RUNNING',
      'the second execution to end',
    );
    expect((await conversation(bug))?.status).toBe('resolved');
  });

  it('reminds on-call of an unacknowledged escalation at each level, then gives up', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'Payments fail for every customer since 10:00');
    const bug = bugIdFor(report);
    const escalate: BugResult = {
      action: 'escalate',
      summary: 'Payments are down for everyone: provider outage suspected.',
      confidence: 40,
      severity: 'critical',
    };
    h.script(bug, turn(bug, escalate));

    const escalation = await h.eventually(
      () => h.messages(CHANNELS.developers),
      (messages) => messages.some((m) => m.bot && JSON.stringify(m).includes(bug)),
      'the escalation',
    );
    const thread = escalation.find((m) => JSON.stringify(m).includes(bug))?.ts ?? '';
    // Nobody acknowledges: each level's minute runs out, two reminders, then the last deadline.
    for (const level of [0, 1, 2]) await passSlaDeadline(h, bug, 60, level);
    const texts = await h.eventually(
      () => botTexts(CHANNELS.developers, thread),
      (t) => t.some((x) => x.includes('SLA missed')),
      'the SLA to be given up',
    );

    expect(texts.filter((t) => t.includes('SLA reminder'))).toHaveLength(2);
    expect(texts.every((t) => t.includes('<!subteam^S_ONCALL>'))).toBe(true);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });

  it('stops SLA reminders once a developer answers the escalation', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'Search is down for every customer');
    const bug = bugIdFor(report);
    h.script(bug, [
      ...turn(bug, {
        action: 'escalate',
        summary: 'Search cluster unreachable.',
        confidence: 30,
        // Low: 200 minutes, passed below once the answer is in.
        severity: 'low',
      }),
      ...turn(bug, findings('Search cluster unreachable: certificate expired.')),
    ]);
    const escalation = await h.eventually(
      () => h.messages(CHANNELS.developers),
      (messages) => messages.some((m) => m.bot && JSON.stringify(m).includes(bug)),
      'the escalation',
    );
    const thread = escalation.find((m) => JSON.stringify(m).includes(bug))?.ts ?? '';

    await h.post(CHANNELS.developers, DEVELOPER, 'on it', thread);
    // The answer has reached the Router before the deadline comes.
    await h.sandbox.idle();
    await passSlaDeadline(h, bug, 200 * 60);
    const children = await h.eventually(
      () =>
        h.driver.api<{ executions: { name: string; stateMachine: string; status: string }[] }>(
          '/sandbox/executions',
        ),
      (list) =>
        list.executions.some(
          (e) => e.name.startsWith(bug) && e.stateMachine.startsWith('SlaTracking') && e.status !== 'RUNNING',
        ),
      'SLA tracking to stop',
    );

    expect(
      children.executions.find((e) => e.stateMachine.startsWith('SlaTracking') && e.name.startsWith(bug))
        ?.status,
    ).toBe('SUCCEEDED');
    expect((await botTexts(CHANNELS.developers, thread)).some((t) => t.includes('SLA missed'))).toBe(false);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });
});
