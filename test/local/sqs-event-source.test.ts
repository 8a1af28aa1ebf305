import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventSource, startEventSource } from '../../local/sqs/event-source.ts';
import { SqsQueueService } from '../../local/sqs/queue-service.ts';
import { until } from '../support/eventually.ts';

/** What an event source is started with. */
type EventSourceOptions = Parameters<typeof startEventSource>[0];
/** A Lambda handler of SQS batches, as the event source invokes it. */
type SqsBatchHandler = NonNullable<EventSourceOptions['handler']>;
/** A handler made for each poller, as Lambda gives each instance its own module state. */
type PerPollerHandler = { createHandler: NonNullable<EventSourceOptions['createHandler']> };

// The queue runs on a hand-moved clock. A ticker moves it past the visibility timeout only
// when no batch is running and messages wait in flight (failed ones), so a retry never
// depends on how fast this machine is and no timeout ends in the middle of a batch.
const VISIBILITY_MS = 30_000;
let now: number;
let service: SqsQueueService;
let queueUrl: string;
let dlqUrl: string;
let source: EventSource | undefined;
let ticker: NodeJS.Timeout | undefined;
let errors: Array<{ phase: string; error: unknown }>;

function createQueues(maxReceiveCount: number): void {
  dlqUrl = service.createQueue({ QueueName: 'inbox-dlq.fifo', Attributes: { FifoQueue: 'true' } }).QueueUrl;
  queueUrl = service.createQueue({
    QueueName: 'inbox.fifo',
    Attributes: {
      FifoQueue: 'true',
      VisibilityTimeout: String(VISIBILITY_MS / 1000),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: service.queueArn(dlqUrl), maxReceiveCount }),
    },
  }).QueueUrl;
}

beforeEach(() => {
  now = Date.UTC(2025, 0, 1);
  service = new SqsQueueService({ now: () => now });
  createQueues(3);
  errors = [];
});

afterEach(async () => {
  clearInterval(ticker);
  await source?.stop();
  source = undefined;
  service.close();
});

type StartOptions = Partial<Omit<EventSourceOptions, 'handler' | 'createHandler'>>;

function start(invoke: SqsBatchHandler | PerPollerHandler, options: StartOptions = {}): EventSource {
  const events = startEventSource({
    service,
    queueUrl,
    pollIntervalMs: 5,
    onError: (error, { phase }) => errors.push({ phase, error }),
    ...options,
    ...(typeof invoke === 'function' ? { handler: invoke } : invoke),
  });
  ticker = setInterval(() => {
    if (events.stats.runningBatches === 0 && service.counts(queueUrl).inFlight > 0) {
      now += VISIBILITY_MS;
      service.poke();
    }
  }, 5);
  source = events;
  return events;
}

/** One turn of the event loop: what was already due (timers, I/O, resolved promises) runs first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function send(body: string, group: string): void {
  service.sendMessage({
    QueueUrl: queueUrl,
    MessageBody: body,
    MessageGroupId: group,
    MessageDeduplicationId: body,
  });
}

function sendAll(messages: Array<[body: string, group: string]>): void {
  for (const [body, group] of messages) send(body, group);
}

/** Fails the named bodies the first `times` they are seen; records what each attempt saw. */
function flakyHandler(failures: Record<string, number>) {
  const attempts: SQSRecord[] = [];
  const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures = [];
    for (const record of event.Records) {
      attempts.push(record);
      const left = failures[record.body] ?? 0;
      if (left > 0) {
        failures[record.body] = left - 1;
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
  return { handler, attempts };
}

/**
 * A Router-like handler: Powertools' FIFO processor with skipGroupOnError, one processor per
 * instance as each Lambda instance has its own module state.
 */
function powertoolsHandler(
  recordHandler: (record: SQSRecord) => Promise<void>,
): (instance: number) => SqsBatchHandler {
  return () => {
    const processor = new SqsFifoPartialProcessorAsync();
    return (event: SQSEvent, context: Context) =>
      processPartialResponse(event, recordHandler, processor, {
        context,
        skipGroupOnError: true,
        throwOnFullBatchFailure: false,
      });
  };
}

describe('SQS event source driver', () => {
  it('hands the handler SQSEvent records carrying the FIFO attributes and deletes them after success', async () => {
    const seen: SQSRecord[] = [];
    const events = start(async (event) => {
      seen.push(...event.Records);
    });
    send('hello', 'C1:1700000000.000100');

    await events.idle();

    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      body: 'hello',
      eventSource: 'aws:sqs',
      eventSourceARN: service.queueArn(queueUrl),
      awsRegion: 'us-east-1',
      attributes: {
        ApproximateReceiveCount: '1',
        MessageGroupId: 'C1:1700000000.000100',
        MessageDeduplicationId: 'hello',
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SentTimestamp: String(now),
      },
    });
    expect(service.counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('retries only the records listed in batchItemFailures and deletes the rest', async () => {
    const { handler, attempts } = flakyHandler({ b1: 1 });
    const events = start(handler);
    sendAll([
      ['a1', 'A'],
      ['b1', 'B'],
      ['c1', 'C'],
    ]);

    await events.idle();

    const tries = (body: string) => attempts.filter((record) => record.body === body);
    expect(tries('a1')).toHaveLength(1);
    expect(tries('c1')).toHaveLength(1);
    expect(tries('b1').map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    expect(events.stats.failedRecords).toBe(1);
  });

  it('retries the whole batch when the handler throws', async () => {
    let calls = 0;
    const bodies: string[] = [];
    const events = start(async (event) => {
      calls += 1;
      if (calls === 1) throw new Error('database unavailable');
      bodies.push(...event.Records.map((record) => record.body));
    });
    sendAll([
      ['a1', 'A'],
      ['a2', 'A'],
    ]);

    await events.idle();

    expect(bodies).toEqual(['a1', 'a2']);
    expect(errors).toEqual([
      { phase: 'invoke', error: expect.objectContaining({ message: 'database unavailable' }) },
    ]);
  });

  it('fails the whole batch when an itemIdentifier names no record of the batch', async () => {
    let calls = 0;
    const events = start(async (): Promise<SQSBatchResponse> => {
      calls += 1;
      return { batchItemFailures: calls === 1 ? [{ itemIdentifier: 'not-in-this-batch' }] : [] };
    });
    send('a1', 'A');

    await events.idle();

    expect(calls).toBe(2);
    expect(errors.map((entry) => (entry.error as Error).name)).toEqual(['InvalidBatchResponseError']);
  });

  it('keeps delivering group B while a poison message of group A is retried and dead-lettered', async () => {
    const { handler, attempts } = flakyHandler({ poison: Number.POSITIVE_INFINITY });
    const events = start(handler, { batchSize: 1 });
    sendAll([
      ['poison', 'A'],
      ['a2', 'A'],
      ['b1', 'B'],
      ['b2', 'B'],
    ]);

    await events.idle();

    const order = attempts.map((record) => record.body);
    expect(order.filter((body) => body === 'poison')).toHaveLength(3);
    // B finished before A's poison message had used up its three receives...
    expect(order.indexOf('b2')).toBeLessThan(order.lastIndexOf('poison'));
    // ...and A's next message waited for the poison message to leave the group.
    expect(order.indexOf('a2')).toBeGreaterThan(order.lastIndexOf('poison'));
    const { Messages = [] } = await service.receiveMessage({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10 });
    expect(Messages.map((message) => message.Body)).toEqual(['poison']);
  });

  it("keeps a group's order when a message fails mid-batch under Powertools' FIFO processor", async () => {
    const processed: string[] = [];
    const failuresLeft: Record<string, number> = { a2: 1 };
    const events = start({
      createHandler: powertoolsHandler(async (record) => {
        const left = failuresLeft[record.body] ?? 0;
        if (left > 0) {
          failuresLeft[record.body] = left - 1;
          throw new Error(`transient failure on ${record.body}`);
        }
        processed.push(record.body);
      }),
    });
    sendAll([
      ['a1', 'A'],
      ['a2', 'A'],
      ['b1', 'B'],
      ['a3', 'A'],
      ['b2', 'B'],
    ]);

    await events.idle();

    expect(processed.filter((body) => body.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(processed.filter((body) => body.startsWith('b'))).toEqual(['b1', 'b2']);
  });

  it('processes every message once and in group order across concurrent batches with random failures', async () => {
    service.close();
    service = new SqsQueueService({ now: () => now });
    // Under skipGroupOnError a record also comes back when an earlier one of its group fails,
    // and each return counts as a receive: the limit is set well above what that adds up to.
    createQueues(50);
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const processed = new Map<string, string[]>();
    const events = start(
      {
        createHandler: powertoolsHandler(async (record) => {
          // A seeded random number of turns of the event loop (0-3) that shuffles how the
          // concurrent batches interleave, the same on a fast machine and a slow one.
          for (let turns = Math.floor(random() * 4); turns > 0; turns -= 1) await nextTurn();
          if (random() < 0.25) throw new Error('transient');
          const group = record.attributes.MessageGroupId ?? '';
          processed.set(group, [...(processed.get(group) ?? []), record.body]);
        }),
      },
      { batchSize: 4, concurrency: 3 },
    );
    const groups = ['G1', 'G2', 'G3', 'G4', 'G5'];
    const expected = new Map(groups.map((group) => [group, [1, 2, 3, 4, 5, 6].map((n) => `${group}-${n}`)]));
    for (let n = 0; n < 6; n += 1) for (const group of groups) send(expected.get(group)?.[n] ?? '', group);

    await events.idle();

    expect(events.stats.failedRecords).toBeGreaterThan(0);
    expect(service.counts(dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    expect(processed).toEqual(expected);
  });

  it('gives each poller its own handler instance from createHandler', async () => {
    const instancesUsed = new Set<number>();
    let releaseA: () => void = () => undefined;
    const bStarted = new Promise<void>((resolve) => {
      releaseA = resolve;
    });
    const events = start(
      {
        createHandler: (instance) => async (event) => {
          instancesUsed.add(instance);
          const group = event.Records[0]?.attributes.MessageGroupId;
          if (group === 'B') releaseA();
          // A's batch can only finish if B's batch starts while A's is still running: if B never
          // runs alongside A, nothing moves and the wait for idle below fails on no progress.
          if (group === 'A') await bStarted;
        },
      },
      { batchSize: 1, concurrency: 2 },
    );
    sendAll([
      ['a1', 'A'],
      ['b1', 'B'],
    ]);

    await events.idle();

    expect(errors).toEqual([]);
    expect(instancesUsed).toEqual(new Set([0, 1]));
  });

  it('lets the running batch finish when stopped', async () => {
    let started = false;
    let finished = false;
    let endBatch: () => void = () => undefined;
    const batchWork = new Promise<void>((resolve) => {
      endBatch = resolve;
    });
    const events = start(async () => {
      started = true;
      // The batch's own work, which the stop below begins during and must outlast.
      await batchWork;
      finished = true;
    });
    send('a1', 'A');
    await until(() => started, 'the batch to start');

    let stopped = false;
    const stopping = events.stop().then(() => {
      stopped = true;
    });
    // The stop has aborted the idle pollers' receives and a turn of the event loop has passed:
    // a stop that did not wait for the running batch would have resolved by now.
    await until(() => service.waitingReceives(queueUrl) === 0, 'the idle pollers to stop receiving');
    await nextTurn();
    expect(stopped).toBe(false);
    endBatch();
    await stopping;

    expect(finished).toBe(true);
    expect(service.counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('redelivers a message whose handler outlived the visibility timeout, as SQS does', async () => {
    let calls = 0;
    const events = start(async () => {
      calls += 1;
      // The first attempt takes longer than the visibility timeout: its delete is refused.
      if (calls === 1) now += VISIBILITY_MS + 1;
    });
    send('slow', 'A');

    await events.idle();

    expect(calls).toBe(2);
    expect(errors.map((entry) => entry.phase)).toEqual(['delete']);
  });
});
