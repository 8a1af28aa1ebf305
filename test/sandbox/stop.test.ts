import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_ACTION_ID } from '../../lambdas/kernel/stop.ts';
import { fakeStreams } from '../../local/slack/streams.ts';
import { submit } from '../support/scripted-model.ts';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  REPORTER,
  readsHistory,
  startBugHarness,
} from './bug-harness.ts';

/**
 * Stop during a slow turn: the reporter sends `stop` while the agent's model call is still
 * out. The thread is told who stopped it at once, the turn ends without posting its question,
 * its timeline closes without its Stop button, and the conversation goes back to its wait for
 * the reporter: Stop closes nothing. A later press of the old timeline's Stop, when nothing
 * runs, is answered privately and changes nothing.
 */

let h: BugHarness;

beforeAll(async () => {
  h = await startBugHarness(
    { reporterWaitSeconds: 600_000, developerWaitSeconds: 600_000 },
    { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } },
  );
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

/**
 * Posts a bug report whose first turn asks `question`, and holds that turn's model call until
 * `release()`: the returned promise resolves once the held call has begun.
 */
async function reportWithHeldTurn(
  text: string,
  question: string,
): Promise<{ report: string; bug: string; release: () => void }> {
  const report = await h.post(CHANNELS.reports, REPORTER, text);
  const bug = bugIdFor(report);
  let release = () => {};
  const slow = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = false;
  h.script(bug, [
    readsHistory(bug),
    async () => {
      asked = true;
      await slow;
      return submit(ask(question));
    },
  ]);
  await h.eventually(
    async () => asked,
    (value) => value,
    'the slow model call to begin',
  );
  return { report, bug, release };
}

describe('stop in the thread', () => {
  it('ends the running turn only: its timeline closes, and the conversation waits for the reporter', async () => {
    const { report, bug, release } = await reportWithHeldTurn(
      'search is slow since this morning',
      'Which search page do you mean?',
    );

    await h.post(CHANNELS.reports, REPORTER, 'Stop', report);
    const said = await h.eventually(
      () => h.messages(CHANNELS.reports, report),
      (messages) => messages.some((m) => m.bot && m.text.includes('Stopped by')),
      'the thread to say who stopped it',
    );
    expect(said.find((m) => m.text.includes('Stopped by'))?.text).toContain(`Stopped by <@${REPORTER}>`);

    release();
    const waiting = await h.eventually(
      () => h.store.getConversation(bug),
      (c) => c?.wait !== undefined,
      'the conversation to wait for the reporter again',
    );
    expect(waiting).toMatchObject({ status: 'active', phase: 'awaiting_reporter', closeRequested: false });
    expect((await h.execution(bug)).status).toBe('RUNNING');
    const texts = (await h.messages(CHANNELS.reports, report)).filter((m) => m.bot).map((m) => m.text);
    expect(texts.some((text) => text.includes('Which search page'))).toBe(false);
    // The stop is a command, not a message for the agent: nothing of it is pending.
    const stored = await h.store.listMessages(bug);
    expect(stored.some((m) => m.text === 'Stop')).toBe(false);

    // The stopped turn's timeline is closed (stopStream), and its Stop button is gone.
    const workspace = h.sandbox.slack.workspace;
    const [stream] = fakeStreams(workspace).filter((s) => s.threadTs === report);
    expect(stream?.state).toBe('completed');
    const timeline = JSON.stringify(workspace.find(CHANNELS.reports, stream?.ts ?? '').blocks);
    expect(timeline).toContain('Stopped after 1 step');
    expect(timeline).not.toContain(STOP_ACTION_ID);

    // The old timeline's Stop, pressed while nothing runs: told privately, nothing changes.
    const before = (await h.messages(CHANNELS.reports, report)).length;
    const response = await h.driver.press({
      channel: CHANNELS.reports,
      user: REPORTER,
      messageTs: stream?.ts ?? '',
      actionId: STOP_ACTION_ID,
      value: bug,
    });
    expect(response.ok).toBe(true);
    const privately = await h.eventually(
      async () => workspace.ephemerals().filter((e) => e.user === REPORTER),
      (found) => found.some((e) => e.text.includes('Nothing is running')),
      'the private answer to the press',
    );
    expect(privately.some((e) => e.text.includes('Closing this'))).toBe(false);
    expect((await h.messages(CHANNELS.reports, report)).length).toBe(before);
    expect(await h.store.getConversation(bug)).toMatchObject({
      status: 'active',
      phase: 'awaiting_reporter',
      closeRequested: false,
    });
  });
});

describe('never mind during a turn', () => {
  it("closes the conversation, and the turn's timeline says who closed it", async () => {
    const { report, bug, release } = await reportWithHeldTurn(
      'the cart forgets its items',
      'Which browser do you use?',
    );

    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    // The close is recorded while the turn still runs: only then does its model answer.
    await h.eventually(
      () => h.store.getConversation(bug),
      (c) => c?.closeRequested === true,
      'the close to be recorded',
    );
    release();
    await h.eventually(
      () => h.messages(CHANNELS.reports, report),
      (messages) => messages.some((m) => m.bot && m.text.includes('Closing this')),
      'the close to be acknowledged',
    );
    const workspace = h.sandbox.slack.workspace;
    const [stream] = fakeStreams(workspace).filter((s) => s.threadTs === report);
    const timeline = JSON.stringify(workspace.find(CHANNELS.reports, stream?.ts ?? '').blocks);
    expect(timeline).toContain(`Stopped after 1 step: closed by <@${REPORTER}>`);
    expect(timeline).not.toContain('without finishing');
    expect(timeline).not.toContain(STOP_ACTION_ID);
  });
});
