/**
 * The one way tests wait for something asynchronous to become true (the sandbox's workflows,
 * emulators and servers run on their own): poll a probe until a predicate holds, or fail with
 * what was awaited and the last value seen. A probe that throws counts as "not yet" (an
 * execution not started, a server not listening), and its message is the last value seen.
 */

export interface EventuallyOptions {
  /** How long to keep trying before failing. @default 30_000 */
  readonly timeoutMs?: number;
  /** The pause between two probes. @default 25 */
  readonly intervalMs?: number;
}

/** Polls `probe` until `accept` holds; resolves with the accepted value. */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  options: EventuallyOptions | number = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 25 } =
    typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      last = await probe();
      if (accept(last as T)) return last as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) break;
    await pause(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${describe(last)}`);
}

/** Polls until `condition` is true (for conditions with nothing to return). */
export function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: EventuallyOptions | number = {},
): Promise<boolean> {
  return eventually(condition, (value) => value, what, options);
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
