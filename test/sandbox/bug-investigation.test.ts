import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpError, lastUserText, malformed } from '../support/scripted-model.ts';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  REPORTER,
  readsHistory,
  startBugHarness,
  submits,
  turn,
} from './bug-harness.ts';

/**
 * The verification steps and the extra scenarios, end to end in the sandbox:
 * signed Slack requests in, recorded Slack posts out, a scripted model that is asserted on.
 */

let h: BugHarness;

beforeAll(async () => {
  // A wait times out when a test moves the clock: silence is a matter of order, not of real time.
  h = await startBugHarness({}, { clock: 'manual' });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const botTexts = async (channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

const conversation = (bugId: string) => h.store.getConversation(bugId, { consistent: true });

/** Resolves once the conversation waits in `phase` (its wait is registered). */
const waitsIn = (bugId: string, phase: string) =>
  h.eventually(
    () => conversation(bugId),
    (c) => c?.wait !== undefined && c.phase === phase,
    `${bugId} to wait in ${phase}`,
  );

/** The summary thread the findings opened in #bug-summaries. */
async function summaryThread(summary: string): Promise<string> {
  const posts = await h.eventually(
    () => h.messages(CHANNELS.summaries),
    (messages) => messages.some((m) => m.bot && m.text.includes(summary)),
    'the findings in #bug-summaries',
  );
  const post = posts.find((m) => m.bot && m.text.includes(summary));
  if (!post) throw new Error('no findings post');
  return post.ts;
}

/** Resolves once findings with `summary` were posted again, in the summary thread. */
const updatedFindings = (thread: string, summary: string) =>
  h.eventually(
    () => botTexts(CHANNELS.summaries, thread),
    (texts) => texts.some((t) => t.includes(summary)),
    `updated findings "${summary}"`,
  );

const finished = (bugId: string) =>
  h.eventually(
    () => h.execution(bugId),
    (e) => e.status !== 'RUNNING',
    `${bugId} to finish`,
  );

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

  it('delivers, at once and once, an answer sent before the wait opened', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'uploads hang');
    const bug = bugIdFor(report);
    const prompts: string[] = [];
    h.script(bug, [
      readsHistory(bug),
      async (request) => {
        // The reporter answers while the turn that asks is still finishing.
        await h.post(CHANNELS.reports, REPORTER, 'files over 10 MB, on Chrome', report);
        await h.sandbox.idle();
        return submits(ask('Which file sizes?'))(request);
      },
      ...turn(bug, findings('Uploads over 10 MB hang.'), (_h, p) => prompts.push(p)),
      ...turn(bug, findings('Uploads over 10 MB hang: proxy limit.'), (_h, p) => prompts.push(p)),
    ]);

    const thread = await summaryThread('Uploads over 10 MB hang.');
    await waitsIn(bug, 'awaiting_dev');
    await h.post(CHANNELS.summaries, DEVELOPER, 'is it the proxy body limit?', thread);
    await updatedFindings(thread, 'Uploads over 10 MB hang: proxy limit.');

    const answer =
      '"from":"U_REPORTER","role":"reporter","verified":true,"text":"files over 10 MB, on Chrome';
    expect(prompts[0]).toContain(answer);
    expect(prompts[1]).not.toContain(answer);
    const stored = (await h.store.listMessages(bug)).filter((m) => m.text === 'files over 10 MB, on Chrome');
    expect(stored).toHaveLength(1);
    const events = (await h.execution(bug)).events;
    const waits = events.filter((e) => e.stateName === 'Wait for reporter' && e.type === 'TaskStateEntered');
    expect(waits).toHaveLength(1);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });

  it("keeps developers' messages sent while awaiting the reporter for the turn after the reporter's answer", async () => {
    const report = await h.post(
      CHANNELS.reports,
      REPORTER,
      'The dashboard shows yesterday as empty since Monday',
    );
    const bug = bugIdFor(report);
    let prompt = '';
    h.script(bug, [
      ...turn(bug, findings('Dashboard misses a day.')),
      ...turn(bug, ask('Which timezone is your account in?')),
      ...turn(bug, findings('Dashboard misses a day: UTC cut-off.'), (_h, p) => {
        prompt = p;
      }),
    ]);
    const thread = await summaryThread('Dashboard misses a day.');
    await waitsIn(bug, 'awaiting_dev');
    await h.post(CHANNELS.summaries, DEVELOPER, 'ask them for the timezone', thread);
    await waitsIn(bug, 'awaiting_reporter');

    await h.post(CHANNELS.summaries, DEVELOPER, 'I suspect the UTC cut-off job', thread);
    await h.sandbox.idle();
    expect(h.requestsOf(bug)).toHaveLength(4);
    await h.post(CHANNELS.reports, REPORTER, 'Europe/Berlin', report);
    await updatedFindings(thread, 'Dashboard misses a day: UTC cut-off.');

    expect(prompt).toContain(
      '"from":"U_DEV","role":"developer","verified":true,"text":"I suspect the UTC cut-off job',
    );
    expect(prompt).toContain('"from":"U_REPORTER","role":"reporter","verified":true,"text":"Europe/Berlin');
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });

  it('stores and delivers once an answer Slack sends three times', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'emails are not sent');
    const bug = bugIdFor(report);
    let prompt = '';
    h.script(bug, [
      ...turn(bug, ask('Which emails?')),
      ...turn(bug, findings('Password reset emails are not sent.'), (_h, p) => {
        prompt = p;
      }),
    ]);
    await waitsIn(bug, 'awaiting_reporter');
    const ts = `${report.split('.')[0]}.900000`;
    const body = {
      type: 'event_callback',
      team_id: 'T_SANDBOX',
      api_app_id: 'A_BOT',
      event_id: `EvTHRICE${report.replace('.', '')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'message',
        channel: CHANNELS.reports,
        user: REPORTER,
        text: 'password resets',
        ts,
        thread_ts: report,
        event_ts: ts,
      },
    };

    for (const retry of [undefined, 1, 2]) {
      const response = await h.driver.event(body, retry);
      expect(response.status).toBe(200);
    }
    await summaryThread('Password reset emails are not sent.');

    expect((await h.store.listMessages(bug)).filter((m) => m.text === 'password resets')).toHaveLength(1);
    expect(prompt.split('password resets')).toHaveLength(2);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
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
