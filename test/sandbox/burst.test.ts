import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTLE } from '../../lambdas/kernel/settle.ts';
import { type BugHarness, startBugHarness } from './bug-harness.ts';
import { runBurst } from './burst-run.ts';

/**
 * A burst of messages into one thread while a conversation waits for them: every message
 * reaches the agent's prompt, and the bot answers in a handful of posts, not one per turn
 * that happened to start in the middle of the burst (Drain coalesces, lambdas/kernel/settle.ts).
 */

let h: BugHarness;

beforeAll(async () => {
  h = await startBugHarness();
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

describe('a burst of 200 messages into one thread', () => {
  it('hands all 200 to the agent and answers them in a handful of posts', async () => {
    const burst = await runBurst(h, 200, 'test');

    const seen = burst.sent.filter((text) => burst.prompts.some((prompt) => prompt.includes(text)));
    expect(seen).toHaveLength(200);
    // The first message of the burst is answered at once (nothing shows a burst yet); the rest
    // wait for the burst to end, or for the settle's bound: one turn per `maxMs` of sending at
    // most, and one more for what arrived during the last of those turns. The bound follows how
    // long the sandbox took to store the burst, never a fixed count: on a loaded machine storing
    // 200 messages takes longer than the settle's bound, and each 12 s of it may cost a turn
    // (docs/limits-and-failures.md, Bursts of messages). On an idle machine it comes to 2 or 3.
    const bound = 2 + Math.ceil(burst.sendMs / DEFAULT_SETTLE.maxMs) + 1;
    expect(burst.turns).toBeLessThanOrEqual(bound);
    expect(burst.posts).toBe(burst.turns);
  });
});
