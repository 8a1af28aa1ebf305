import { activityCount } from '../../local/activity.ts';

/**
 * The one way tests wait for something asynchronous to become true (the sandbox's workflows,
 * emulators and servers run on their own): poll a probe until a predicate holds, or fail with
 * what was awaited and the last value seen. A probe that throws counts as "not yet" (an
 * execution not started, a server not listening), and its message is the last value seen.
 *
 * A wait fails on no progress, never on a total: it gives up only when, for `stallMs`, neither
 * the value it probes changed nor the sandbox did any work (local/activity.ts: execution events,
 * Lambda invocations, model calls, Slack writes) nor the caller's own sign of progress moved
 * (`progress`, such as a child process's CPU time). On a busy machine the same wait simply
 * takes longer; a wait for something that will never happen still ends, a stall period after
 * the last thing that did.
 */

export interface EventuallyOptions {
  /** How long without progress before failing. @default 60_000 */
  readonly stallMs?: number;
  /**
   * The first pause between two probes. While the probed value stays the same the pause grows
   * (by half each time, up to `MAX_INTERVAL_MS` or this, whichever is more), and it is back to
   * this once the value changes: a probe often reads the sandbox (a table scan, a request), and
   * a test that waits long would otherwise spend the machine's CPU asking. @default 25
   */
  readonly intervalMs?: number;
  /**
   * Another sign of progress, for work outside this process (a sandbox's `GET /sandbox/activity`,
   * a child process's CPU time, `processCpuTicks`): a change in its value counts as progress too.
   */
  readonly progress?: () => number | undefined | Promise<number | undefined>;
}

/** The longest pause between two probes that keep seeing the same value (unless `intervalMs` is longer). */
const MAX_INTERVAL_MS = 250;

/** Polls `probe` until `accept` holds; resolves with the accepted value. */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  options: EventuallyOptions | number = {},
): Promise<T> {
  const {
    stallMs = 60_000,
    intervalMs = 25,
    progress,
  } = typeof options === 'number' ? { stallMs: options } : options;
  let last: unknown;
  let seen: string | undefined;
  let activity = await activitySign(progress);
  let progressAt = Date.now();
  let pauseMs = intervalMs;
  for (;;) {
    try {
      last = await probe();
      if (accept(last as T)) return last as T;
    } catch (error) {
      last = error;
    }
    const described = describe(last);
    const nowActivity = await activitySign(progress);
    pauseMs =
      described === seen ? Math.min(pauseMs * 1.5, Math.max(intervalMs, MAX_INTERVAL_MS)) : intervalMs;
    if (described !== seen || nowActivity !== activity) {
      seen = described;
      activity = nowActivity;
      progressAt = Date.now();
    } else if (Date.now() - progressAt >= stallMs) {
      break;
    }
    await pause(pauseMs);
  }
  throw new Error(`no progress for ${stallMs} ms waiting for ${what}; last seen: ${seen}`);
}

/** Polls until `condition` is true (for conditions with nothing to return). */
export function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: EventuallyOptions | number = {},
): Promise<boolean> {
  return eventually(condition, (value) => value, what, options);
}

/** The pause between two probes; not exported: a test waits for its condition, never a fixed time. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The sandbox's work in this process, and the caller's own sign of progress, as one comparable value. */
async function activitySign(progress: EventuallyOptions['progress']): Promise<string> {
  return `${activityCount()}/${(await progress?.()) ?? ''}`;
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
