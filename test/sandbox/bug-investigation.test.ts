import { describe, expect, it } from 'vitest';
import { httpError, lastUserText, malformed } from '../support/scripted-model.ts';
import {
  ask,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  REPORTER,
  readsHistory,
  submits,
  turn,
} from './bug-harness.ts';
import {
  botTexts,
  bugInvestigationHarness,
  conversation,
  finished,
  h,
  summaryThread,
  updatedFindings,
  waitsIn,
} from './bug-investigation-scenario.ts';

/**
 * The bug investigation's verification steps, end to end in the sandbox: signed Slack requests
 * in, recorded Slack posts out, a scripted model that is asserted on; and its escalation when the
 * model API fails. When an answer arrives (before the wait opened, while another party is
 * awaited, three times) is in bug-investigation-timing.test.ts.
 */

bugInvestigationHarness();

/** Phases in the order the execution set them, from the states it entered. */
function phasesOf(events: { type: string; stateName?: string }[]): string[] {
  const phaseOf: Record<string, string> = {
    // Drain marks the conversation investigating as each turn begins.
    'Drain messages': 'investigating',
    'Wait for reporter': 'awaiting_reporter',
    'Wait for developers': 'awaiting_dev',
    'Mark resolved': 'resolved',
  };
  const phases = events.flatMap((e) =>
    e.type.endsWith('StateEntered') && e.stateName && phaseOf[e.stateName]
      ? [phaseOf[e.stateName] as string]
      : [],
  );
  return phases.filter((phase, i) => phase !== phases[i - 1]);
}

describe('bug investigation in the sandbox', () => {
  it('steps 1-3, 9: a vague report gets a question, the answer leads to findings, silence resolves it', async () => {
    expect((await fetch(`${h.sandbox.url}/healthz`)).status).toBe(200);
    // What a caller in another process reads to tell a slow sandbox from a stuck one.
    const activity = async () =>
      ((await (await fetch(`${h.sandbox.url}/sandbox/activity`)).json()) as { count: number }).count;
    const activityBefore = await activity();
    const report = await h.post(CHANNELS.reports, REPORTER, 'something is broken');
    const bug = bugIdFor(report);
    let secondPrompt = '';
    h.script(bug, [
      ...turn(bug, ask('Which page fails, and what error do you see?')),
      ...turn(bug, findings('Checkout fails after the payment redirect.'), (_history, prompt) => {
        secondPrompt = prompt;
      }),
    ]);

    await waitsIn(bug, 'awaiting_reporter');
    expect(await botTexts(CHANNELS.reports, report)).toEqual([
      ":eyes: Thanks! I'm looking into this.",
      ':question: Which page fails, and what error do you see?',
    ]);
    expect(await activity()).toBeGreaterThan(activityBefore);
    await h.post(CHANNELS.reports, REPORTER, 'the checkout page, a 500 after paying', report);
    await summaryThread('Checkout fails after the payment redirect.');
    await waitsIn(bug, 'awaiting_dev');
    expect((await conversation(bug))?.status).toBe('pending_verification');
    // The developers stay silent for their whole wait (the harness's 8,000 s).
    await h.advanceClock(8_000);
    const done = await finished(bug);

    expect(secondPrompt).toContain(
      '"from":"U_REPORTER","role":"reporter","verified":true,"text":"the checkout page, a 500 after paying',
    );
    expect(done.status).toBe('SUCCEEDED');
    expect(phasesOf(done.events)).toEqual([
      'investigating',
      'awaiting_reporter',
      'investigating',
      'awaiting_dev',
      'resolved',
    ]);
    expect((await conversation(bug))?.status).toBe('resolved');
  });

  it("steps 4 and 7: the reporter's second message, sent while a turn runs, is in the history the agent reads next", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'login is flaky');
    const bug = bugIdFor(report);
    let historyNextTurn = '';
    let promptNextTurn = '';
    h.script(bug, [
      readsHistory(bug),
      async (request) => {
        // While this turn runs, the reporter adds something.
        await h.post(CHANNELS.reports, REPORTER, 'it only fails with SSO accounts', report);
        return submits(findings('Login fails for some accounts.'))(request);
      },
      ...turn(bug, findings('Login fails for SSO accounts only.'), (history, prompt) => {
        historyNextTurn = history;
        promptNextTurn = prompt;
      }),
    ]);

    // Findings wait for any message: the reporter's pending one wakes the follow-up at once.
    const thread = await summaryThread('Login fails for some accounts.');
    await updatedFindings(thread, 'Login fails for SSO accounts only.');

    expect(historyNextTurn).toContain(
      '"from":"U_REPORTER","role":"reporter","verified":true,"text":"it only fails with SSO accounts',
    );
    expect(promptNextTurn).toContain(
      '"from":"U_REPORTER","role":"reporter","verified":true,"text":"it only fails with SSO accounts',
    );
    expect(promptNextTurn).toContain(`get_bug_conversations("${bug}")`);
    expect(promptNextTurn).toContain('do not ask again');
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });

  it("step 5: a third party's reply in the reporter's thread triggers nothing", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'export is broken');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, ask('Which export format?')));
    await waitsIn(bug, 'awaiting_reporter');

    await h.post(CHANNELS.reports, 'U_THIRD', 'same for me!', report);
    await h.sandbox.idle();

    expect(h.requestsOf(bug)).toHaveLength(2);
    expect((await conversation(bug))?.wait).toBeDefined();
    expect((await h.store.listMessages(bug)).some((m) => m.text === 'same for me!')).toBe(false);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });

  it('step 6: two developer messages sent quickly both appear in the history the next turn reads', async () => {
    const report = await h.post(
      CHANNELS.reports,
      REPORTER,
      'The search page returns a 502 for queries with accents',
    );
    const bug = bugIdFor(report);
    const histories: string[] = [];
    const prompts: string[] = [];
    const seen = (history: string, prompt: string) => {
      histories.push(history);
      prompts.push(prompt);
    };
    h.script(bug, [
      ...turn(bug, findings('Search 502s on accented queries.')),
      ...turn(bug, findings('Search 502s: the tokenizer rejects UTF-8.'), seen),
      // The second message may be stored after the first one's Drain took the pending ones:
      // then it waits for the next turn (I3), which runs at once (RegisterWait finds it pending).
      ...turn(bug, findings('Search 502s: the tokenizer rejects UTF-8.'), seen),
    ]);
    const thread = await summaryThread('Search 502s on accented queries.');
    await waitsIn(bug, 'awaiting_dev');

    await Promise.all([
      h.post(CHANNELS.summaries, DEVELOPER, 'check the tokenizer', thread),
      h.post(CHANNELS.summaries, 'U_DEV2', 'and the nginx logs', thread),
    ]);
    await updatedFindings(thread, 'Search 502s: the tokenizer rejects UTF-8.');
    const handed = (text: string) => prompts.filter((p) => p.includes(text)).length;
    const first = '"from":"U_DEV","role":"developer","verified":true,"text":"check the tokenizer';
    const second = '"from":"U_DEV2","role":"developer","verified":true,"text":"and the nginx logs';
    await h.eventually(
      async () => [handed(first), handed(second)],
      (counts) => counts.every((n) => n > 0),
      'both messages handed to a turn',
    );
    await waitsIn(bug, 'awaiting_dev');

    // Verification step 6: both are in the conversation history the follow-up turn reads.
    expect(histories[0]).toContain('check the tokenizer');
    expect(histories[0]).toContain('and the nginx logs');
    // Each was handed to exactly one turn's prompt (I3).
    expect(handed(first)).toBe(1);
    expect(handed(second)).toBe(1);
    expect(await botTexts(CHANNELS.summaries, thread)).toContain(':mag: Follow-up investigation started...');
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });

  it('step 8: "never mind" closes the conversation, cleans up and resolves it', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'notifications are late');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, ask('How late, roughly?')));
    await waitsIn(bug, 'awaiting_reporter');

    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    const done = await finished(bug);

    expect(done.status).toBe('SUCCEEDED');
    // the last word in the reporter's thread carries the conversation's estimated cost.
    expect((await botTexts(CHANNELS.reports, report)).at(-1)).toMatch(
      /^:white_check_mark: Closing this, thanks\.\n:moneybag: Estimated model cost of this conversation: \$/,
    );
    const closed = await conversation(bug);
    expect(closed).toMatchObject({ status: 'resolved', closeRequested: true });
    expect(closed?.wait).toBeUndefined();
    expect(await h.store.pendingMessages(bug)).toEqual([]);
    expect(h.requestsOf(bug)).toHaveLength(2);
  });

  it('escalates with the error when the model API fails (500, 529, then a malformed answer), and nothing is stuck', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'The billing page is blank for all EU customers');
    const bug = bugIdFor(report);
    h.script(bug, [httpError(500), httpError(529), malformed()]);

    const escalation = await h.eventually(
      () => h.messages(CHANNELS.developers),
      (messages) => messages.some((m) => m.bot && JSON.stringify(m).includes(bug)),
      'the escalation',
    );
    await waitsIn(bug, 'awaiting_dev');

    expect(h.requestsOf(bug)).toHaveLength(3);
    const post = escalation.find((m) => JSON.stringify(m).includes(bug));
    expect(post?.text).toContain('<!subteam^S_ONCALL>');
    expect(JSON.stringify(post)).toMatch(/invalid JSON|Malformed/i);
    const executions = await h.driver.api<{ executions: { name: string; stateMachine: string }[] }>(
      '/sandbox/executions',
    );
    expect(
      executions.executions.some((e) => e.stateMachine.startsWith('SlaTracking') && e.name.startsWith(bug)),
    ).toBe(true);
    // The first request carried the report; the agent's error is on the record, the wait is open.
    expect(lastUserText(h.requestsOf(bug)[0]?.body ?? { messages: [], model: '', max_tokens: 1 })).toContain(
      'billing page',
    );
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });
});
