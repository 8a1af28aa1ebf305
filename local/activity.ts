import { keptInProcess } from '../lambdas/shared/kept.ts';

/**
 * A count of the work the sandbox has done in this process: events its Step Functions
 * executions recorded, Lambda invocations, model calls, and what the bot wrote to Slack. Reads
 * are left out on purpose: a test polling for a result must not count as progress. Whoever waits on
 * the sandbox (a test, the eval harness) reads it to tell a slow machine, where the count keeps
 * rising, from a stuck one, where it stops: a wait then fails on no progress for a stated
 * period, never on a fixed total.
 *
 * The count lives on the process, not in this module, so it survives a test runner's module
 * reset (the sandbox and the code waiting on it may hold different copies of this file).
 */

interface Counter {
  count: number;
}

const counter = (): Counter => keptInProcess('sandbox-activity', () => ({ count: 0 }));

/** Records one unit of sandbox work. */
export function noteActivity(): void {
  counter().count += 1;
}

/** How much sandbox work this process has done so far (only ever rises). */
export function activityCount(): number {
  return counter().count;
}
