import { fileURLToPath } from 'node:url';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  findings,
  REPORTER,
  startBugHarness,
  turn,
} from './bug-harness.ts';
import { PROBE_CHANNEL } from './function-thread-probe.ts';

/**
 * A bug conversation with the sandbox's functions in worker threads (`functionThreads`): the
 * same answers in the same threads as on the main thread, every handler's call sent from a
 * function thread.
 */

const sent: { threadId: number; command: string }[] = [];
const channel = new BroadcastChannel(PROBE_CHANNEL);
channel.onmessage = (event) => sent.push((event as { data: (typeof sent)[number] }).data);

let h: BugHarness;
beforeAll(async () => {
  h = await startBugHarness(
    {},
    {
      functionThreads: {
        count: 1,
        preload: [fileURLToPath(new URL('./function-thread-probe.ts', import.meta.url))],
      },
    },
  );
});
afterAll(async () => {
  channel.close();
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

describe('the functions in worker threads', () => {
  it('run a conversation from its report to its findings, the wake protocol included', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'the invoice PDF is blank');
    const bug = bugIdFor(report);
    h.script(bug, [
      ...turn(bug, ask('Which browser do you use?')),
      ...turn(bug, findings('Blank invoices come from the PDF worker timing out.')),
    ]);
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.phase === 'awaiting_reporter' && c.wait !== undefined,
      'the question to wait for its answer',
    );
    await h.post(CHANNELS.reports, REPORTER, 'Firefox 128', report);
    const summaries = await h.eventually(
      () => h.messages(CHANNELS.summaries),
      (messages) => messages.some((m) => m.bot && m.text.includes('PDF worker timing out')),
      'the findings in #bug-summaries',
    );
    expect(summaries.filter((m) => m.bot && m.text.includes('PDF worker timing out'))).toHaveLength(1);
    const toReporter = await h.eventually(
      async () => (await h.messages(CHANNELS.reports, report)).filter((m) => m.bot).map((m) => m.text),
      (texts) => texts.length >= 3,
      "the reporter's thread to point at the findings",
    );
    expect(toReporter).toEqual([
      ":eyes: Thanks! I'm looking into this.",
      ':question: Which browser do you use?',
      expect.stringContaining("I've posted what I found for the developers"),
    ]);

    // The handlers' calls (the Router's wake, Drain's reads, the turns' writes) came from the threads.
    await h.eventually(
      async () => sent.map((call) => call.command),
      (commands) => commands.includes('SendTaskSuccessCommand'),
      'a wait handed back from a function thread',
    );
    const threads = new Set(sent.map((call) => call.threadId));
    expect(threads.has(threadId)).toBe(false);
    // One thread serves every function here, overlapping calls included (the choice among
    // several threads is test/local/function-threads.test.ts's).
    expect(threads.size).toBe(1);
    expect(sent.map((call) => call.command)).toEqual(
      expect.arrayContaining(['QueryCommand', 'UpdateCommand', 'SendTaskSuccessCommand']),
    );
  });
});
