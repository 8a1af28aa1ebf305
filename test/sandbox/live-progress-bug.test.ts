import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { fakeStreams } from '../../local/slack/streams.ts';
import { toolUse } from '../support/scripted-model.ts';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  findings,
  REPORTER,
  readsHistory,
  startBugHarness,
  submits,
} from './bug-harness.ts';

/**
 * Live progress of a real bug investigation in the sandbox: each agent turn streams a task
 * per tool call into the reporter's thread, and the tasks are exactly the calls the model made.
 */

let h: BugHarness;

beforeAll(async () => {
  // A long reporter wait: the answer below must arrive before it ends, however slow the machine.
  h = await startBugHarness(
    { reporterWaitSeconds: 600_000 },
    { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } },
  );
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

/** The tool calls (not the submission) the model made in the requests of a conversation. */
function toolCallsIn(bodies: readonly MessageCreateParamsNonStreaming[]): { id: string; name: string }[] {
  const calls = new Map<string, string>();
  for (const body of bodies)
    for (const message of body.messages)
      if (message.role === 'assistant' && Array.isArray(message.content))
        for (const block of message.content)
          if (block.type === 'tool_use' && block.name !== SUBMIT_TOOL) calls.set(block.id, block.name);
  return [...calls].map(([id, name]) => ({ id, name }));
}

describe('live progress of a bug investigation', () => {
  it("streams each turn's tool calls as tasks in the reporter's thread, then the answer takes its place", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'the checkout total is wrong');
    const bug = bugIdFor(report);
    h.script(bug, [
      readsHistory(bug),
      toolUse('lookup_orders', { order: 'A-17' }),
      submits(ask('Which order shows the wrong total?')),
    ]);
    const workspace = h.sandbox.slack.workspace;
    const streams = await h.eventually(
      async () => fakeStreams(workspace).filter((s) => s.threadTs === report),
      (found) => found.length === 1 && found[0]?.state === 'completed',
      "the first turn's stream to stop",
    );
    const [stream] = streams;
    const made = toolCallsIn(h.requestsOf(bug).map((r) => r.body));
    expect(made.map((c) => c.name)).toEqual(['get_bug_conversations', 'lookup_orders']);
    expect(stream?.tasks.map((t) => t.id)).toEqual(made.map((c) => c.id));
    expect(stream?.tasks.map((t) => [t.title, t.status])).toEqual([
      ['Reading the conversation so far', 'complete'],
      // Not a tool of this agent: the model is told so, and the task shows the error.
      ['Running lookup orders', 'error'],
    ]);
    expect(stream?.channel).toBe(CHANNELS.reports);

    // The question takes the timeline's place: one message for the turn, a new reply (so it
    // notifies the thread) opening with the timeline's summary; the timeline's message is deleted.
    const bots = await h.eventually(
      async () => (await h.messages(CHANNELS.reports, report)).filter((m) => m.bot),
      (found) =>
        found.some((m) => m.text.includes('Which order shows the wrong total?')) &&
        !found.some((m) => m.ts === stream?.ts),
      'the question in place of the timeline',
    );
    const question = bots.find((m) => m.text.includes('Which order'));
    // The report's acknowledgement, then the question: nothing else of the turn.
    expect(bots.map((m) => m.ts)).toEqual([bots[0]?.ts, question?.ts]);
    expect(bots[0]?.text).toContain('looking into this');
    expect((question?.ts ?? '') > (stream?.ts ?? '')).toBe(true);
    const summary = JSON.stringify(workspace.find(CHANNELS.reports, question?.ts ?? '').blocks?.[0]);
    expect(summary).toContain('Done: 2 steps');
    expect(summary).toContain('Reading the conversation so far');
    const deleted = workspace.apiCalls('chat.delete').filter((call) => call.outcome === 'ok');
    expect(deleted.map((call) => call.args.ts)).toEqual([stream?.ts]);

    // The reporter answers: the next turn gets its own timeline, with its own calls.
    h.script(bug, [readsHistory(bug), submits(findings('The discount is applied twice.'))]);
    await h.post(CHANNELS.reports, REPORTER, 'order A-17', report);
    const both = await h.eventually(
      async () => fakeStreams(workspace).filter((s) => s.threadTs === report),
      (found) => found.length === 2 && found[1]?.state === 'completed',
      "the second turn's stream to stop",
    );
    const all = toolCallsIn(h.requestsOf(bug).map((r) => r.body));
    expect(both[1]?.tasks.map((t) => t.id)).toEqual(all.slice(2).map((c) => c.id));
    expect(both[1]?.tasks.map((t) => t.title)).toEqual(['Reading the conversation so far']);
  });
});
