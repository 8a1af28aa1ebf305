import type { StoredMessage } from './model.ts';

/**
 * How Drain coalesces a burst of messages into one turn. A person who sends ten lines in a
 * row, or a bot that floods a thread, gets one answer to all of it instead of an answer per
 * turn that happened to start in the middle.
 */
export interface SettleOptions {
  /** A burst has ended when no new pending message was stored for this long. */
  readonly quietMs: number;
  /** The longest Drain waits for a burst to end (below the Drain function's timeout). */
  readonly maxMs: number;
  /**
   * From this many pending messages on, Drain assumes a burst and settles; a lone message is
   * taken at once, so a plain answer costs no added latency.
   * @default 2
   */
  readonly minPending?: number;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Quiet spell and bound the Drain function uses in AWS and in the sandbox. */
export const DEFAULT_SETTLE = { quietMs: 1_500, maxMs: 12_000 } as const;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Same pending set as before: the same count and the same newest message. */
function unchanged(before: readonly StoredMessage[], after: readonly StoredMessage[]): boolean {
  return before.length === after.length && before.at(-1)?.ts === after.at(-1)?.ts;
}

/**
 * Reads the pending messages; while they look like a burst, reads again after each quiet spell
 * until one spell brings nothing new or `maxMs` has passed. Returns the last read, so nothing
 * stored before it is left out; what comes after stays pending for the next turn.
 */
export async function settledPending(
  read: () => Promise<StoredMessage[]>,
  options: SettleOptions,
): Promise<StoredMessage[]> {
  const sleep = options.sleep ?? sleepFor;
  const now = options.now ?? Date.now;
  let pending = await read();
  if (pending.length < (options.minPending ?? 2)) return pending;
  const start = now();
  for (;;) {
    const left = options.maxMs - (now() - start);
    if (left <= 0) return pending;
    await sleep(Math.min(options.quietMs, left));
    const next = await read();
    if (unchanged(pending, next)) return next;
    pending = next;
  }
}
