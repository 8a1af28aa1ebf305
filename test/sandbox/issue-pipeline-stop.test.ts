import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_ACTION_ID } from '../../lambdas/kernel/stop.ts';
import type { ModelReply } from '../support/scripted-model.ts';
import { toolUse } from '../support/scripted-model.ts';
import {
  type IssueHarness,
  PIPELINE_CHANNEL,
  pipelineIdFor,
  REPO,
  startIssueHarness,
  submitAs,
} from './issue-harness.ts';

/**
 * Stop pressed on a running issue-pipeline stage: the stage's turn ends before it hands its
 * work back, and the pipeline waits for people as after a question of its own; nothing else
 * changes (no stage done, no branch, no pull request, nothing closed). A second press, when
 * nothing runs, is answered privately and changes nothing.
 */

const DEVELOPER = 'U_DEV';
let h: IssueHarness;

beforeAll(async () => {
  h = await startIssueHarness({}, { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

/** A model call held until `release()`; `out()` tells when it is out. */
function held(reply: ModelReply) {
  let release = () => {};
  let out = false;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const step = async () => {
    out = true;
    await gate;
    return reply;
  };
  return { step, release: () => release(), out: async () => out };
}

const press = (messageTs: string | undefined, value: string) =>
  h.driver.press({
    channel: PIPELINE_CHANNEL,
    user: DEVELOPER,
    messageTs: messageTs ?? '',
    actionId: STOP_ACTION_ID,
    value,
  });

describe('Stop in an issue pipeline', () => {
  it("ends the running stage's turn only: the pipeline waits for people, and a second press is answered privately", async () => {
    const issue = await h.openIssue(
      'Checkout totals too high with a discount code',
      'VAT before the discount.',
    );
    const id = pipelineIdFor(issue);
    const triage = held(
      submitAs('submit_triage', {
        type: 'BUG_FIX',
        scope: 'SMALL',
        complexity: 'simple',
        should_proceed: true,
      }),
    );
    h.script(id, [toolUse('search_code', { pattern: 'vat' }), triage.step]);
    await h.waitFor(triage.out, (out) => out, "the triage's model call to be out");
    const conversation = await h.store.getConversation(id, { consistent: true });
    const thread = Object.values(conversation?.anchors ?? {}).find((a) => a.channel === PIPELINE_CHANNEL);
    const before = await h.documents.load(id);
    // The stage's timeline, with its Stop button while the turn runs.
    const timeline = (
      await h.waitFor(
        () => h.messages(PIPELINE_CHANNEL, thread?.threadTs),
        (ms) => ms.some((m) => m.bot && m.text.startsWith('Working on it')),
        "the triage's timeline",
      )
    ).find((m) => m.bot && m.text.startsWith('Working on it'));
    expect(
      JSON.stringify(h.sandbox.slack.workspace.find(PIPELINE_CHANNEL, timeline?.ts ?? '').blocks),
    ).toContain(STOP_ACTION_ID);

    expect((await press(timeline?.ts, id)).ok).toBe(true);
    await h.waitFor(
      () => h.messages(PIPELINE_CHANNEL, thread?.threadTs),
      (ms) => ms.some((m) => m.bot && m.text.includes(`Stopped by <@${DEVELOPER}>`)),
      'the thread to say who stopped it',
    );
    triage.release();
    const waiting = await h.waitFor(
      () => h.store.getConversation(id, { consistent: true }),
      (c) => c?.wait !== undefined,
      'the pipeline to wait for people',
    );
    expect(waiting).toMatchObject({ status: 'active', phase: 'awaiting_people', closeRequested: false });
    expect(waiting?.runningTurns ?? []).toEqual([]);
    const after = await h.documents.load(id);
    // The stopped stage is not done, and the pipeline neither moved on nor ended.
    expect(after.triage.completed).toBe(false);
    expect(after.pipeline).toMatchObject({
      status: before.pipeline.status,
      current_agent: 'triage',
      attempt: before.pipeline.attempt,
    });
    expect(after.communication.escalations).toEqual([
      {
        agent: 'triage',
        reason: expect.stringContaining('I was stopped'),
        requires_human: true,
        resolved: false,
      },
    ]);
    const { data: pulls } = await h.github.rest.pulls.list({ ...REPO, state: 'all' });
    expect(pulls).toEqual([]);
    // The turn handed nothing back: the triage's answer was never taken.
    expect(h.requestsOf(id)).toHaveLength(2);
    const asked = await h.waitFor(
      () => h.messages(PIPELINE_CHANNEL, thread?.threadTs),
      (ms) => ms.some((m) => m.bot && m.text.includes('The triage asks')),
      'the question to people',
    );
    expect(
      JSON.stringify(h.sandbox.slack.workspace.find(PIPELINE_CHANNEL, timeline?.ts ?? '').blocks),
    ).not.toContain(STOP_ACTION_ID);

    // The old timeline's Stop, pressed again while nothing runs: told privately, nothing changes.
    expect((await press(timeline?.ts, id)).ok).toBe(true);
    const privately = await h.waitFor(
      async () => h.sandbox.slack.workspace.ephemerals().filter((e) => e.user === DEVELOPER),
      (found) => found.some((e) => e.text.includes('Nothing is running')),
      'the private answer to the second press',
    );
    expect(privately).toHaveLength(1);
    expect(await h.messages(PIPELINE_CHANNEL, thread?.threadTs)).toHaveLength(asked.length);
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({
      status: 'active',
      phase: 'awaiting_people',
      closeRequested: false,
      wait: waiting?.wait,
    });
    expect(await h.documents.load(id)).toEqual(after);
  });
});
