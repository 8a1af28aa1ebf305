import type { FifoQueue } from './fifo-queue.ts';

interface Waiter<Request, Message> {
  queue: FifoQueue;
  request: Request;
  finish: (messages: Message[]) => void;
}

export interface LongPollsOptions<Request, Message> {
  now: () => number;
  /** Virtual ms per real ms, as for the service's clock. */
  timeScale: number;
  /** One receive attempt for a waiting request; empty when nothing can be delivered yet. */
  attempt: (queue: FifoQueue, request: Request) => Message[];
}

/**
 * Receives waiting for messages (WaitTimeSeconds > 0). A wait is retried whenever its queue
 * changes in a way that can make a message deliverable (a send, a delete that unlocks a
 * group, a visibility change, a redrive) and when the queue's next delayed or in-flight
 * message becomes visible, for which one timer per queue is kept while anyone waits.
 */
export class LongPolls<Request, Message> {
  private readonly waiters = new Set<Waiter<Request, Message>>();
  private readonly wakeTimers = new Map<FifoQueue, { at: number; timer: NodeJS.Timeout }>();
  private readonly pendingPumps = new Set<FifoQueue>();
  private closed = false;

  constructor(private readonly options: LongPollsOptions<Request, Message>) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** How many receives wait on `queue` now. */
  waitingOn(queue: FifoQueue): number {
    let count = 0;
    for (const waiter of this.waiters) if (waiter.queue === queue) count += 1;
    return count;
  }

  /** Waits up to `waitMs` of queue time for `attempt` to deliver; resolves empty on timeout or abort. */
  wait(queue: FifoQueue, request: Request, waitMs: number, signal?: AbortSignal): Promise<Message[]> {
    if (this.closed || signal?.aborted) return Promise.resolve([]);
    return new Promise((resolve) => {
      let deadline: NodeJS.Timeout | undefined;
      const onAbort = () => waiter.finish([]);
      const waiter: Waiter<Request, Message> = {
        queue,
        request,
        finish: (messages) => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(deadline);
          signal?.removeEventListener('abort', onAbort);
          resolve(messages);
        },
      };
      this.waiters.add(waiter);
      deadline = setTimeout(onAbort, waitMs / this.options.timeScale);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.scheduleWake(queue);
    });
  }

  /**
   * Re-tries the queue's waits. Deferred to a microtask so a change made inside a receive
   * (a redrive into another queue) does not re-enter it, and several changes pump once.
   */
  notify(queue: FifoQueue): void {
    if (this.pendingPumps.has(queue)) return;
    this.pendingPumps.add(queue);
    queueMicrotask(() => {
      this.pendingPumps.delete(queue);
      this.pump(queue);
    });
  }

  /** Ends the queue's waits empty (the queue was deleted). */
  cancel(queue: FifoQueue): void {
    for (const waiter of [...this.waiters]) if (waiter.queue === queue) waiter.finish([]);
    this.scheduleWake(queue);
  }

  /** Ends every wait empty and clears every timer; later waits return at once. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.finish([]);
    for (const { timer } of this.wakeTimers.values()) clearTimeout(timer);
    this.wakeTimers.clear();
  }

  private pump(queue: FifoQueue): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.queue !== queue) continue;
      let messages: Message[] = [];
      try {
        messages = this.options.attempt(queue, waiter.request);
      } catch {
        // The request was valid when it started waiting; a queue deleted since ends it empty.
        waiter.finish([]);
      }
      if (messages.length > 0) waiter.finish(messages);
    }
    this.scheduleWake(queue);
  }

  private scheduleWake(queue: FifoQueue): void {
    const existing = this.wakeTimers.get(queue);
    const hasWaiters = [...this.waiters].some((waiter) => waiter.queue === queue);
    const now = this.options.now();
    const next = hasWaiters && !this.closed ? queue.nextVisibilityChange(now) : undefined;
    if (existing && existing.at !== next) {
      clearTimeout(existing.timer);
      this.wakeTimers.delete(queue);
    }
    if (next === undefined || this.wakeTimers.has(queue)) return;
    const timer = setTimeout(
      () => {
        this.wakeTimers.delete(queue);
        this.pump(queue);
      },
      // +1 ms so the timer never fires just before the message's visibility time.
      Math.ceil((next - now) / this.options.timeScale) + 1,
    );
    this.wakeTimers.set(queue, { at: next, timer });
  }
}
