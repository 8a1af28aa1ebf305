import type { EventSource } from '../../local/sqs/event-source.ts';
import type { SqsQueueService } from '../../local/sqs/queue-service.ts';
import { until } from './eventually.ts';

/**
 * A queue clock that stands still unless the test moves it, for tests of an event source with a
 * short visibility timeout. A record whose batch failed comes back when `drain()` moves the
 * clock past its visibility timeout, never while a batch still runs, so a batch that takes long
 * on a busy machine is not received a second time (and dead-lettered) for being slow.
 */
export function standingQueueClock(visibilityTimeoutMs = 1_000) {
  const start = Date.now();
  let moved = 0;
  return {
    /** The clock to give the queue service (`listenSqsApi({ now })`). */
    now: () => start + moved,
    /** Lets the event source work until the queue is empty, moving the clock on after each failed batch. */
    async drain(sqs: SqsQueueService, source: EventSource, queueUrl: string): Promise<void> {
      const quiet = () => {
        const counts = sqs.counts(queueUrl);
        return source.stats.runningBatches === 0 && counts.visible === 0 && counts.delayed === 0;
      };
      for (;;) {
        await until(quiet, 'the running batches to end');
        // Twice, a turn of the event loop apart: the queue service answers a receive in this
        // process through promises alone, so a poller that has just received a batch has counted
        // it as running by the next turn (a message in flight is then a failed one's).
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (!quiet()) continue;
        if (sqs.counts(queueUrl).inFlight === 0) return;
        moved += visibilityTimeoutMs;
      }
    },
  };
}
