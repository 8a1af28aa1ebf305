/**
 * Holds one message's Slack calls to at most one per `intervalMs` (from the end of one to the
 * start of the next): requests that arrive while
 * a call waits or runs are served by the next call, which carries everything asked so far.
 * The flush function reads the state to send when it runs, so nothing asked is lost, and no
 * two calls for the message ever overlap.
 */

export interface CoalescerOptions {
  /** The least time between the end of a call and the start of the next. @default 1000 */
  intervalMs?: number;
  /** Epoch ms. @default Date.now */
  now?: () => number;
  /** Waits `ms`. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

export class Coalescer {
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private dirty = false;
  private running: Promise<void> | undefined;
  /** Calls made so far (for benchmarks and logs). */
  calls = 0;

  constructor(
    private readonly flush: () => Promise<void>,
    options: CoalescerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Asks for a call; returns at once. */
  request(): void {
    this.dirty = true;
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once no call is asked for or running. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    while (this.dirty) {
      const wait = this.lastEnd + this.intervalMs - this.now();
      if (wait > 0) await this.sleep(wait);
      this.dirty = false;
      this.calls += 1;
      // The flush handles its own failures; one that throws anyway must not stop later calls.
      await this.flush().catch(() => {});
      // Counted from the end of a call: a slow call (a stream's start) cannot bunch the next one onto it.
      this.lastEnd = this.now();
    }
  }
}
