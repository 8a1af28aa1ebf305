import { threadId } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FunctionThreads, type ThreadedFunction } from '../../local/function-threads.ts';

/** The sandbox's functions in worker threads: what crosses, what each thread keeps, how they end. */

const FIXTURE: ThreadedFunction = {
  logicalId: 'FixtureFunction',
  entry: 'test/local/function-thread-fixture.ts',
  parts: [],
  timeoutSeconds: 30,
};
type Seen = { threadId: number; served: number; functionName: string; remaining: number; marker?: string };

let threads: FunctionThreads | undefined;
afterEach(async () => {
  await threads?.close();
  threads = undefined;
});

describe('a function in a worker thread', () => {
  // One thread for these three, as a Lambda instance serves invocation after invocation: a
  // thread's start is most of such a test's cost (tsx registers in it).
  let one: FunctionThreads;
  beforeAll(() => {
    one = new FunctionThreads({ count: 1 });
  });
  afterAll(() => one.close());

  it("runs the handler off the main thread with a Lambda context, its result through JSON as Lambda's", async () => {
    const when = new Date('2030-01-02T03:04:05.000Z');
    const seen = (await one.invoke(FIXTURE, { when })) as Seen & { when: string };
    expect(seen.threadId).not.toBe(threadId);
    expect(seen.functionName).toBe('FixtureFunction');
    expect(seen.remaining).toBeGreaterThan(0);
    expect(seen.remaining).toBeLessThanOrEqual(30_000);
    // A Date arrives as a Date (a structured clone) and leaves as its JSON string; undefined is dropped.
    expect(seen.when).toBe('2030-01-02T03:04:05.000Z');
    expect(Object.keys(seen)).not.toContain('nothing');
  });

  it('shares the environment with the main thread, as set after the thread started', async () => {
    await one.invoke(FIXTURE, {});
    process.env.FUNCTION_THREADS_FIXTURE_MARKER = 'set later';
    try {
      expect(((await one.invoke(FIXTURE, {})) as Seen).marker).toBe('set later');
    } finally {
      delete process.env.FUNCTION_THREADS_FIXTURE_MARKER;
    }
  });

  it("hands a handler's error back by its name, message and stack (what Retry and Catch match)", async () => {
    const before = ((await one.invoke(FIXTURE, {})) as Seen).served;
    const error = await one.invoke(FIXTURE, { fail: 'not today' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('FixtureRefusal');
    expect((error as Error).message).toBe('not today');
    expect((error as Error).stack).toContain('function-thread-fixture.ts');
    // The thread survives a handler's error, with its module state.
    expect(((await one.invoke(FIXTURE, {})) as Seen).served).toBe(before + 2);
  });
});

describe('functions in worker threads', () => {
  it('sends an invocation to an idle thread, up to the count, each keeping its module state', async () => {
    threads = new FunctionThreads({ count: 2 });
    const both = (await Promise.all([
      threads.invoke(FIXTURE, { holdMs: 50 }),
      threads.invoke(FIXTURE, { holdMs: 50 }),
    ])) as Seen[];
    expect(new Set(both.map((seen) => seen.threadId)).size).toBe(2);
    expect(both.map((seen) => seen.served)).toEqual([1, 1]);
    const third = (await threads.invoke(FIXTURE, {})) as Seen;
    expect(both.map((seen) => seen.threadId)).toContain(third.threadId);
    expect(third.served).toBe(2);
  });

  it('loads the handlers afresh after a restart, and refuses to run anything once closed', async () => {
    threads = new FunctionThreads({ count: 1 });
    await threads.invoke(FIXTURE, {});
    await threads.restart();
    expect(((await threads.invoke(FIXTURE, {})) as Seen).served).toBe(1);
    await threads.close();
    await expect(threads.invoke(FIXTURE, {})).rejects.toThrow('the sandbox stopped');
  });

  it('refuses a count that is not a whole number of at least one', () => {
    expect(() => new FunctionThreads({ count: 0 })).toThrow(RangeError);
    expect(() => new FunctionThreads({ count: 1.5 })).toThrow('at least 1, not 1.5');
  });
});
