/**
 * Time scaling and timers. The sandbox shrinks every wait and timeout by `timeScale`, so a
 * 2-hour wait for a human takes seconds.
 */

/** `setTimeout` fires at once for delays above 2^31-1 ms; longer timers are chained. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The largest `TimeoutSeconds` aws-local-stepfunctions can arm (it multiplies by 1000 and calls setTimeout). */
export const MAX_LIBRARY_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** A duration of the definition (seconds) in sandbox milliseconds; never below 0. */
export function scaledMs(seconds: number, timeScale: number): number {
  return Math.max(0, Math.round(seconds * 1000 * timeScale));
}

/** A scaled timeout: at least 1 ms, so a timeout never turns into "no timeout". */
export function scaledTimeoutMs(seconds: number, timeScale: number): number {
  return Math.max(1, scaledMs(seconds, timeScale));
}

/** Runs `fn` after `ms` (any length); returns a function that cancels it. */
export function startTimer(ms: number, fn: () => void): () => void {
  let handle: NodeJS.Timeout;
  const arm = (remaining: number) => {
    handle = setTimeout(
      () => (remaining > MAX_TIMER_MS ? arm(remaining - MAX_TIMER_MS) : fn()),
      Math.min(remaining, MAX_TIMER_MS),
    );
  };
  arm(ms);
  return () => clearTimeout(handle);
}
