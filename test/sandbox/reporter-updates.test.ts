import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submit, withUsage } from '../support/scripted-model.ts';
import {
  type BugHarness,
  type BugResult,
  bugIdFor,
  CHANNELS,
  findings,
  findingsPostTs,
  REPORTER,
  readsHistory,
  startBugHarness,
  turn,
} from './bug-harness.ts';

/**
 * the sandbox: what the reporter's thread hears of the report (findings
 * posted for the developers, with a link; resolved; closed, each last word with the
 * conversation's estimated cost) and what the developers' thread hears of a close. A fix's
 * pull request is told in both threads by the fix path: test/sandbox/bug-fix.test.ts.
 */

let h: BugHarness;

beforeAll(async () => {
  // The developers' silence runs out when a test moves the clock, not after 8 s of real time.
  h = await startBugHarness({}, { clock: 'manual' });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const botTexts = async (channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

/** Resolves with the bot's texts in a thread once one matches. */
const botSays = (channel: string, threadTs: string, match: RegExp) =>
  h.eventually(
    () => botTexts(channel, threadTs),
    (texts) => texts.some((text) => match.test(text)),
    `the bot to say ${match} in ${channel} ${threadTs}`,
  );

const finished = (bugId: string) =>
  h.eventually(
    () => h.execution(bugId),
    (e) => e.status !== 'RUNNING',
    `${bugId} to finish`,
  );

/** Resolves once the conversation waits for the developers (its timeout is armed by then). */
const waitForDevelopers = (bugId: string) =>
  h.eventually(
    () => h.store.getConversation(bugId, { consistent: true }),
    (c) => c?.phase === 'awaiting_dev' && c.wait !== undefined,
    'the wait for developers',
  );

/** The scripted model's default usage per call (local/model/messages-wire.ts): 100 in, 20 out. */
const CALL_COST_MICRO_USD = 100 * 2 + 20 * 10; // claude-sonnet-5-5: $2 in, $10 out per million

describe("the reporter's thread hears what became of the report", () => {
  it('links the findings posted for the developers, then says it is resolved when they stay silent, with the cost', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'the invoice PDF is blank');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, findings('Invoice PDFs render before the fonts load.')));

    const summaryTs = await findingsPostTs(h, 'Invoice PDFs render before the fonts load.');
    const told = await botSays(CHANNELS.reports, report, /posted what I found/);
    await waitForDevelopers(bug);
    // The developers stay silent for their whole wait (the harness's 8,000 s).
    await h.advanceClock(8_000);
    const done = await finished(bug);
    const texts = await botTexts(CHANNELS.reports, report);

    expect(told.find((text) => text.includes('posted what I found'))).toBe(
      `:mag: I've posted what I found for the developers in <#${CHANNELS.summaries}> (<${h.sandbox.url}/#channel=${CHANNELS.summaries}&thread=${summaryTs}|the findings>). I'll tell you here when it is fixed, resolved or closed.`,
    );
    expect(done.status).toBe('SUCCEEDED');
    expect(texts.at(-1)).toBe(
      ":white_check_mark: The developers had no further questions about the findings within 8000 seconds, so I've marked this report resolved. If it happens again, post a new report.\n" +
        `:moneybag: Estimated model cost of this conversation: $${((2 * CALL_COST_MICRO_USD) / 1e6).toFixed(4)} (240 tokens)`,
    );
    expect((await h.store.getConversation(bug, { consistent: true }))?.ledger?.costMicroUsd).toBe(
      2 * CALL_COST_MICRO_USD,
    );
  });

  it('says it is resolved when the agent concludes so, with the cost', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'the dark mode toggle does nothing');
    const bug = bugIdFor(report);
    const resolved: BugResult = {
      action: 'resolved',
      summary: 'Dark mode follows the system setting by design; the toggle was removed in 2.3.',
      confidence: 90,
      severity: 'low',
    };
    h.script(bug, [
      readsHistory(bug),
      withUsage(submit(resolved), { input_tokens: 2_000, output_tokens: 500 }),
    ]);

    await finished(bug);
    const texts = await botTexts(CHANNELS.reports, report);

    expect(texts.at(-1)).toBe(
      ":white_check_mark: I've marked this report resolved: my conclusion is in the findings I posted for the developers. If it happens again, post a new report.\n" +
        ':moneybag: Estimated model cost of this conversation: $0.0094 (2,620 tokens)',
    );
    expect(texts.some((text) => text.includes('posted what I found for the developers'))).toBe(true);
  });

  it("acknowledges the reporter's close with the cost, and announces it in the developers' thread", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'search returns nothing for accented names');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, findings('The search index strips accents on one side only.')));
    const summaryTs = await findingsPostTs(h, 'The search index strips accents on one side only.');
    await waitForDevelopers(bug);

    await h.post(CHANNELS.reports, REPORTER, 'never mind, thanks', report);
    const done = await finished(bug);

    expect(done.status).toBe('SUCCEEDED');
    expect((await botTexts(CHANNELS.reports, report)).at(-1)).toBe(
      ':white_check_mark: Closing this, thanks.\n' +
        `:moneybag: Estimated model cost of this conversation: $${((2 * CALL_COST_MICRO_USD) / 1e6).toFixed(4)} (240 tokens)`,
    );
    expect((await botTexts(CHANNELS.summaries, summaryTs)).at(-1)).toBe(
      `:no_entry_sign: <@${REPORTER}> closed this report, so the investigation has ended.`,
    );
  });

  it('closes a report without findings quietly for the developers: there is no thread to tell', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'emails are slow');
    const bug = bugIdFor(report);
    h.script(
      bug,
      turn(bug, { ...findings('x'), action: 'ask_reporter', clarification_question: 'How slow?' }),
    );
    await botSays(CHANNELS.reports, report, /How slow\?/);
    const summariesBefore = (await h.messages(CHANNELS.summaries)).length;

    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    const done = await finished(bug);

    expect(done.events.some((e) => e.stateName === 'Announce close to developers')).toBe(false);
    expect((await h.messages(CHANNELS.summaries)).length).toBe(summariesBefore);
    expect((await botTexts(CHANNELS.reports, report)).at(-1)).toMatch(
      /^:white_check_mark: Closing this, thanks\.\n:moneybag: Estimated model cost of this conversation: \$0\.0008 \(240 tokens\)$/,
    );
  });
});
