import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../lambdas/progress/coalescer.ts';
import { until } from '../support/eventually.ts';

/** A clock that moves only when the coalescer sleeps. */
function fakeTime() {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('Coalescer', () => {
  it('makes one call for a burst of requests, then at most one per interval', async () => {
    const time = fakeTime();
    const starts: number[] = [];
    let seen = 0;
    let asked = 0;
    const pacer = new Coalescer(
      async () => {
        starts.push(time.now());
        seen = asked;
      },
      { intervalMs: 1_000, now: time.now, sleep: time.sleep },
    );
    for (let i = 0; i < 20; i++) {
      asked += 1;
      pacer.request();
    }
    await pacer.settled();
    // The first request is served at once; the other 19 by one call an interval later.
    expect(starts).toEqual([0, 1_000]);
    expect(seen).toBe(20);
    for (let i = 0; i < 5; i++) {
      asked += 1;
      pacer.request();
      await Promise.resolve();
    }
    await pacer.settled();
    expect(seen).toBe(asked);
    for (let i = 1; i < starts.length; i++)
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it('calls at once when the last call is older than the interval', async () => {
    const time = fakeTime();
    const starts: number[] = [];
    const pacer = new Coalescer(async () => void starts.push(time.now()), {
      intervalMs: 1_000,
      now: time.now,
      sleep: time.sleep,
    });
    pacer.request();
    await pacer.settled();
    time.advance(5_000);
    pacer.request();
    await pacer.settled();
    expect(starts).toEqual([0, 5_000]);
  });

  it('goes on after a flush that throws', async () => {
    const time = fakeTime();
    let calls = 0;
    const pacer = new Coalescer(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('Slack down');
      },
      { now: time.now, sleep: time.sleep },
    );
    pacer.request();
    await pacer.settled();
    pacer.request();
    await pacer.settled();
    expect(calls).toBe(2);
  });

  it('never runs two calls at once', async () => {
    let running = 0;
    let most = 0;
    let requests = 0;
    const soon = { intervalMs: 1 };
    const pacer = new Coalescer(
      async () => {
        running += 1;
        most = Math.max(most, running);
        const asked = requests;
        // A call ends only once another request came while it ran (or none is left to come).
        await until(() => requests > asked || requests === 10, 'a request during the call', soon);
        running -= 1;
      },
      { intervalMs: 1 },
    );
    for (let i = 0; i < 10; i++) {
      pacer.request();
      requests += 1;
      // The next request comes while the call that serves this one runs (it ends on that request).
      await until(() => pacer.calls > i, `call ${i + 1} to begin`, soon);
    }
    await pacer.settled();
    expect(most).toBe(1);
  });
});
