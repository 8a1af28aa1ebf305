import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submit } from '../../local/model/scripted-model.ts';
import { ask, type BugHarness, bugIdFor, CHANNELS, REPORTER, startBugHarness } from './bug-harness.ts';

/**
 * Stop during a slow turn: the reporter sends `stop` while the agent's model call is still
 * out; the thread is told who stopped it at once, the turn ends without posting its question,
 * and the conversation closes.
 */

let h: BugHarness;

beforeAll(async () => {
  h = await startBugHarness({ reporterWaitSeconds: 600_000, developerWaitSeconds: 600_000 });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

describe('stop in the thread', () => {
  it('ends a slow turn at once: who stopped it is said, and its question is never posted', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'search is slow since this morning');
    const bug = bugIdFor(report);
    let release = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = false;
    h.script(bug, [
      async () => {
        asked = true;
        await slow;
        return submit(ask('Which search page do you mean?'));
      },
    ]);
    await h.eventually(
      async () => asked,
      (value) => value,
      'the slow model call to begin',
    );

    await h.post(CHANNELS.reports, REPORTER, 'Stop', report);
    const said = await h.eventually(
      () => h.messages(CHANNELS.reports, report),
      (messages) => messages.some((m) => m.bot && m.text.includes('Stopped by')),
      'the thread to say who stopped it',
    );
    expect(said.find((m) => m.text.includes('Stopped by'))?.text).toContain(`Stopped by <@${REPORTER}>`);

    release();
    const done = await h.eventually(
      () => h.execution(bug),
      (e) => e.status !== 'RUNNING',
      'the conversation to end',
    );
    expect(done.status).toBe('SUCCEEDED');
    // The bug workflow's close path (the same as the reporter's "never mind") resolves the bug.
    expect((await h.store.getConversation(bug))?.status).toBe('resolved');
    const texts = (await h.messages(CHANNELS.reports, report)).filter((m) => m.bot).map((m) => m.text);
    expect(texts.some((text) => text.includes('Which search page'))).toBe(false);
    // The stop is a command, not a message for the agent: nothing of it is pending.
    const stored = await h.store.listMessages(bug);
    expect(stored.some((m) => m.text === 'Stop')).toBe(false);
  });
});
