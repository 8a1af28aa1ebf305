import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventSource, type EventSourceOptions, startEventSource } from '../../local/sqs/event-source.ts';
import { SqsQueueService } from '../../local/sqs/queue-service.ts';

// Time runs 20x faster in the service, so a 1 s visibility timeout passes in 50 ms.
let service: SqsQueueService;
let queueUrl: string;
let dlqUrl: string;
let source: EventSource | undefined;
let errors: Array<{ phase: string; error: unknown }>;

beforeEach(() => {
  service = new SqsQueueService({ timeScale: 20 });
  dlqUrl = service.createQueue({ QueueName: 'inbox-dlq.fifo', Attributes: { FifoQueue: 'true' } }).QueueUrl;
  queueUrl = service.createQueue({
    QueueName: 'inbox.fifo',
    Attributes: {
      FifoQueue: 'true',
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: service.queueArn(dlqUrl), maxReceiveCount: 3 }),
    },
  }).QueueUrl;
  errors = [];
});

afterEach(async () => {
  await source?.stop();
  source = undefined;
  service.close();
});

function start(
  handler: EventSourceOptions['handler'],
  options: Partial<EventSourceOptions> = {},
): EventSource {
  source = startEventSource({
    service,
    queueUrl,
    handler,
    pollIntervalMs: 5,
    onError: (error, { phase }) => errors.push({ phase, error }),
    ...options,
  });
  return source;
}

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
        SentTimestamp: expect.stringMatching(/^\d+$/),
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
    // B finished before A's poison message had used up its three receives.
    expect(order.indexOf('b2')).toBeLessThan(order.lastIndexOf('poison'));
    // A's next message waited for the poison message to leave the group.
    expect(order.indexOf('a2')).toBeGreaterThan(order.lastIndexOf('poison'));
    const { Messages = [] } = await service.receiveMessage({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10 });
    expect(Messages.map((message) => message.Body)).toEqual(['poison']);
  });

  it("keeps a group's order when a message fails mid-batch under Powertools' FIFO processor", async () => {
    const processed: string[] = [];
    const failuresLeft: Record<string, number> = { a2: 1 };
    const processor = new SqsFifoPartialProcessorAsync();
    const events = start((event, context) =>
      processPartialResponse(
        event,
        async (record: SQSRecord) => {
          const left = failuresLeft[record.body] ?? 0;
          if (left > 0) {
            failuresLeft[record.body] = left - 1;
            throw new Error(`transient failure on ${record.body}`);
          }
          processed.push(record.body);
        },
        processor,
        { context, skipGroupOnError: true, throwOnFullBatchFailure: false },
      ),
    );
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

  it('runs batches of different groups at the same time', async () => {
    let releaseA: () => void = () => undefined;
    const bStarted = new Promise<void>((resolve) => {
      releaseA = resolve;
    });
    const events = start(
      async (event) => {
        const group = event.Records[0]?.attributes.MessageGroupId;
        if (group === 'B') releaseA();
        // A's batch can only finish if B's batch starts while A's is still running.
        if (group === 'A') {
          await Promise.race([
            bStarted,
            new Promise((_, reject) => setTimeout(() => reject(new Error('B never ran alongside A')), 5_000)),
          ]);
        }
      },
      { batchSize: 1, concurrency: 2, visibilityTimeoutSeconds: 600 },
    );
    sendAll([
      ['a1', 'A'],
      ['b1', 'B'],
    ]);

    await events.idle();

    expect(errors).toEqual([]);
  });

  it('lets the running batch finish when stopped', async () => {
    let finished = false;
    const events = start(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        finished = true;
      },
      { visibilityTimeoutSeconds: 600 },
    );
    send('a1', 'A');
    await new Promise((resolve) => setTimeout(resolve, 30));

    await events.stop();

    expect(finished).toBe(true);
    expect(service.counts(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('redelivers a message whose handler outlived the visibility timeout, as SQS does', async () => {
    let calls = 0;
    const events = start(
      async () => {
        calls += 1;
        // 1 s of queue time is 50 ms here: the first attempt overruns its visibility timeout.
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 150));
      },
      { concurrency: 1 },
    );
    send('slow', 'A');

    await events.idle();

    expect(calls).toBe(2);
    expect(errors.map((entry) => entry.phase)).toEqual(['delete']);
  });

  it('processes every message once and in group order across concurrent batches with random failures', async () => {
    // The queue's clock only moves when nothing is visible and no batch is running, so no
    // visibility timeout ends mid-batch: failures alone decide what is retried.
    service.close();
    let now = Date.UTC(2025, 0, 1);
    service = new SqsQueueService({ now: () => now });
    dlqUrl = service.createQueue({ QueueName: 'dlq.fifo', Attributes: { FifoQueue: 'true' } }).QueueUrl;
    queueUrl = service.createQueue({
      QueueName: 'busy.fifo',
      Attributes: {
        FifoQueue: 'true',
        VisibilityTimeout: '30',
        // Under skipGroupOnError a record also comes back when an earlier one of its group
        // fails, and each return counts as a receive, so the limit is set well above the
        // few failures a message meets here.
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: service.queueArn(dlqUrl), maxReceiveCount: 50 }),
      },
    }).QueueUrl;
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const processed = new Map<string, string[]>();
    const processor = new SqsFifoPartialProcessorAsync();
    const events = start(
      (event, context) =>
        processPartialResponse(
          event,
          async (record: SQSRecord) => {
            await new Promise((resolve) => setTimeout(resolve, random() * 3));
            if (random() < 0.25) throw new Error('transient');
            const group = record.attributes.MessageGroupId ?? '';
            processed.set(group, [...(processed.get(group) ?? []), record.body]);
          },
          processor,
          { context, skipGroupOnError: true, throwOnFullBatchFailure: false },
        ),
      { batchSize: 4, concurrency: 3 },
    );
    const ticker = setInterval(() => {
      const counts = service.counts(queueUrl);
      if (counts.visible === 0 && counts.inFlight > 0 && events.stats.runningBatches === 0) {
        now += 30_000;
        service.poke();
      }
    }, 5);
    const groups = ['G1', 'G2', 'G3', 'G4', 'G5'];
    const expected = new Map(groups.map((group) => [group, [1, 2, 3, 4, 5, 6].map((n) => `${group}-${n}`)]));
    for (let n = 0; n < 6; n += 1) for (const group of groups) send(expected.get(group)?.[n] ?? '', group);

    try {
      await events.idle();
    } finally {
      clearInterval(ticker);
    }

    expect(events.stats.failedRecords).toBeGreaterThan(0);
    expect(service.counts(dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    expect(processed).toEqual(expected);
  });
});
