import { afterAll, beforeAll, expect } from 'vitest';
import { type BugHarness, CHANNELS, findingsPostTs, startBugHarness } from './bug-harness.ts';

/**
 * The sandbox the bug investigation scenarios run in, and what they wait for there: one harness
 * for the file, on the manual clock, started with the same options for each file that registers
 * it, so that a warm worker hands the later file the sandbox the earlier one used
 * (docs/testing.md, "One sandbox for many files"). bug-investigation.test.ts and
 * bug-investigation-timing.test.ts run here.
 */

// Set in the file's `beforeAll`; an importer reads the current file's (exported bindings are live).
export let h: BugHarness;

/** Registers the file's hooks: the harness started before its tests, stopped after them. */
export function bugInvestigationHarness(): void {
  beforeAll(async () => {
    // A wait times out when a test moves the clock: silence is a matter of order, not of real time.
    h = await startBugHarness({}, { clock: 'manual' });
  });
  afterAll(async () => {
    await h?.stop();
    expect(h?.modelFailures ?? []).toEqual([]);
  });
}

export const botTexts = async (channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

export const conversation = (bugId: string) => h.store.getConversation(bugId, { consistent: true });

/** Resolves once the conversation waits in `phase` (its wait is registered). */
export const waitsIn = (bugId: string, phase: string) =>
  h.eventually(
    () => conversation(bugId),
    (c) => c?.wait !== undefined && c.phase === phase,
    `${bugId} to wait in ${phase}`,
  );

/** The summary thread the findings opened in #bug-summaries. */
export const summaryThread = (summary: string) => findingsPostTs(h, summary);

/** Resolves once findings with `summary` were posted again, in the summary thread. */
export const updatedFindings = (thread: string, summary: string) =>
  h.eventually(
    () => botTexts(CHANNELS.summaries, thread),
    (texts) => texts.some((t) => t.includes(summary)),
    `updated findings "${summary}"`,
  );

/** Resolves with the execution once it has finished. */
export const finished = (bugId: string) =>
  h.eventually(
    () => h.execution(bugId),
    (e) => e.status !== 'RUNNING',
    `${bugId} to finish`,
  );
