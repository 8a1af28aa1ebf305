/**
 * Posts and turns a burst of messages into one thread costs: for bursts of 10, 50 and 200
 * messages from the reporter while the bug investigation waits for them, the bot's posts left in
 * the thread (answers and live progress messages, with turns that make no tool call and with
 * turns that make one, whose timeline is posted only when the turn works longer than 3 s and is
 * replaced by the turn's answer: docs/live-progress.md), the timelines so replaced, the agent's turns, how long the sandbox took to store the burst, and how long
 * until the last answer. The model is scripted (one question per turn), so the figures are the
 * platform's own coalescing (Drain's settle, lambdas/kernel/settle.ts). Prints figures;
 * asserts nothing. Run: `npm run bench:burst` (SIZES=10,50,200 by default;
 * LIVE_PROGRESS_AFTER_MS=0 shows a timeline for every turn).
 */
import { startBugHarness } from '../test/sandbox/bug-harness.ts';
import { runBurst } from '../test/sandbox/burst-run.ts';

const SIZES = (process.env.SIZES ?? '10,50,200').split(',').map(Number);

// Live progress on, as deployed (a timeline for a turn longer than 3 s): the posts count the
// progress messages too. Each size runs twice: turns that only answer (no tool call, so no
// timeline), and turns that make a tool call first.
// LIVE_PROGRESS_AFTER_MS=0 shows every turn's timeline, however quick: the case where each turn
// of the burst has one, to see that its answer replaces it.
const after = process.env.LIVE_PROGRESS_AFTER_MS;
const h = await startBugHarness(
  {},
  { env: { LIVE_PROGRESS: 'on', ...(after === undefined ? {} : { LIVE_PROGRESS_AFTER_MS: after }) } },
);
try {
  console.log(
    'burst  tool calls  posts (answers + progress)  timelines replaced  turns  all seen  stored in  answered in',
  );
  for (const size of SIZES) {
    for (const toolCalls of [false, true]) {
      const burst = await runBurst(h, size, `bench-${size}-${toolCalls ? 'tools' : 'plain'}`, { toolCalls });
      const seen = burst.sent.filter((text) => burst.prompts.some((prompt) => prompt.includes(text))).length;
      const posts = `${burst.posts} (${burst.answers} + ${burst.posts - burst.answers})`;
      console.log(
        `${String(size).padStart(5)}  ${(toolCalls ? 'yes' : 'no').padStart(10)}  ${posts.padStart(26)}  ${String(burst.replaced).padStart(18)}  ${String(burst.turns).padStart(5)}  ${`${seen}/${size}`.padStart(8)}  ${`${(burst.sendMs / 1000).toFixed(1)} s`.padStart(9)}  ${`${(burst.answeredMs / 1000).toFixed(1)} s`.padStart(11)}`,
      );
    }
  }
  if (h.modelFailures.length > 0) console.log('model failures:', h.modelFailures);
} finally {
  await h.stop();
}
