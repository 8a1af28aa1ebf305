import { threadId } from 'node:worker_threads';
import type { Context } from 'aws-lambda';

/** A handler for test/local/function-threads.test.ts: what its thread, module and context saw. */

/** Invocations this module instance served (module state, kept as a Lambda instance keeps it). */
let served = 0;

export class FixtureRefusal extends Error {
  override readonly name = 'FixtureRefusal';
}

export async function handler(event: { fail?: string; holdMs?: number; when?: Date }, context: Context) {
  served += 1;
  if (event.fail !== undefined) throw new FixtureRefusal(event.fail);
  if (event.holdMs !== undefined) await new Promise((resolve) => setTimeout(resolve, event.holdMs));
  return {
    threadId,
    served,
    functionName: context.functionName,
    remaining: context.getRemainingTimeInMillis(),
    marker: process.env.FUNCTION_THREADS_FIXTURE_MARKER,
    when: event.when,
    nothing: undefined,
  };
}
