import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { activityCount } from '../activity.ts';
import type { SqsQueueService, WireMessage } from './queue-service.ts';

/** Like aws-lambda's `SQSHandler` without the callback. */
export type SqsBatchHandler = (
  event: SQSEvent,
  context: Context,
  // biome-ignore lint/suspicious/noConfusingVoidType: as in aws-lambda's SQSHandler, so a handler returning nothing fits
) => Promise<SQSBatchResponse | void>;

export type EventSourcePhase = 'receive' | 'invoke' | 'delete';

/**
 * The function to invoke: one `handler` shared by every poller, or `createHandler`, called
 * once per poller. Lambda runs one invocation per instance at a time, so handlers may keep
 * per-invocation state at module level (a Powertools batch processor does); in process,
 * concurrent pollers sharing such a handler would mix their batches. Give those handlers an
 * instance each with `createHandler`, or use `concurrency: 1`.
 */
export type EventSourceHandler =
  | { handler: SqsBatchHandler; createHandler?: never }
  | { createHandler: (instance: number) => SqsBatchHandler | Promise<SqsBatchHandler>; handler?: never };

export type EventSourceOptions = EventSourceHandler & {
  service: SqsQueueService;
  queueUrl: string;
  /** Messages per invocation, 1 to 10 as for FIFO queues. @default 10 */
  batchSize?: number;
  /** How long a received batch stays invisible; failed records return after it. @default the queue's */
  visibilityTimeoutSeconds?: number;
  /** Pause after an empty poll or a failed receive, in real ms. @default 50 */
  pollIntervalMs?: number;
  /** Batches processed at once, like concurrent Lambda instances. @default 2 */
  concurrency?: number;
  /** Name in the Lambda context handed to the handler. @default 'sqs-consumer' */
  functionName?: string;
  /** Reported failures: a handler that threw, a failed receive or delete. @default console.error */
  onError?: (error: unknown, details: { phase: EventSourcePhase; records: SQSRecord[] }) => void;
};

export interface EventSourceStats {
  batches: number;
  records: number;
  /** Records left on the queue for a retry: reported in batchItemFailures or in a failed batch. */
  failedRecords: number;
  /** Invocations that threw (or answered with an invalid batch response). */
  failedBatches: number;
  /** Batches being processed right now (received, handler or delete not yet finished). */
  runningBatches: number;
}

export interface EventSource {
  readonly stats: Readonly<EventSourceStats>;
  /**
   * Resolves once the queue holds no visible, delayed or in-flight message and no batch is
   * running: everything sent so far was processed or dead-lettered. Rejects when nothing moved
   * for `stallMs` (the queue's counts, the batches run, the sandbox's work): a busy machine
   * drains later, a stuck handler fails.
   */
  idle(options?: { stallMs?: number }): Promise<void>;
  /** Stops polling and waits for running batches to finish. */
  stop(): Promise<void>;
}

export class InvalidBatchResponseError extends Error {
  override readonly name = 'InvalidBatchResponseError';
  constructor(readonly response: unknown) {
    super(`the handler's batch response is invalid, so the whole batch fails: ${JSON.stringify(response)}`);
  }
}

export class EventSourceNotIdleError extends Error {
  override readonly name = 'EventSourceNotIdleError';
  constructor(
    readonly queueUrl: string,
    readonly counts: { visible: number; inFlight: number; delayed: number; runningBatches: number },
    stallMs: number,
  ) {
    super(`queue ${queueUrl} stopped draining: nothing moved for ${stallMs} ms: ${JSON.stringify(counts)}`);
  }
}

/**
 * Drives a handler from a FIFO queue the way Lambda's SQS event source mapping does:
 * batches of up to `batchSize`, `ReportBatchItemFailures` semantics (records not listed are
 * deleted; a thrown error or invalid response fails the whole batch), failed records left to
 * reappear after the visibility timeout and, past the queue's maxReceiveCount, move to its
 * DLQ. `concurrency` pollers run at once, like Lambda instances, each invoking its own
 * handler when `createHandler` is given; the queue's group locking keeps each group's
 * batches in order while other groups proceed.
 */
export function startEventSource(options: EventSourceOptions): EventSource {
  const {
    service,
    queueUrl,
    batchSize = 10,
    visibilityTimeoutSeconds,
    pollIntervalMs = 50,
    concurrency = 2,
    functionName = 'sqs-consumer',
    onError = (error, { phase, records }) =>
      console.error(`[sqs event source] ${phase} failed for ${records.length} record(s)`, error),
  } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
    throw new RangeError(`batchSize must be an integer from 1 to 10 for a FIFO queue, got ${batchSize}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const eventSourceARN = service.queueArn(queueUrl);
  const stats: EventSourceStats = {
    batches: 0,
    records: 0,
    failedRecords: 0,
    failedBatches: 0,
    runningBatches: 0,
  };
  const stopping = new AbortController();

  async function processBatch(handler: SqsBatchHandler, messages: WireMessage[]): Promise<void> {
    const records = messages.map((message) => toRecord(message, eventSourceARN, service.region));
    stats.batches += 1;
    stats.records += records.length;
    let failed: Set<string>;
    try {
      const response = await handler({ Records: records }, lambdaContext(functionName, service));
      failed = failedMessageIds(response, records);
    } catch (error) {
      stats.failedBatches += 1;
      onError(error, { phase: 'invoke', records });
      failed = new Set(records.map((record) => record.messageId));
    }
    stats.failedRecords += failed.size;
    const done = records.filter((record) => !failed.has(record.messageId));
    if (done.length === 0) return;
    try {
      const result = service.deleteMessageBatch({
        QueueUrl: queueUrl,
        Entries: done.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
      });
      // A delete fails when the handler outlived the visibility timeout; SQS then redelivers.
      if (result.Failed.length > 0) {
        const undeleted = result.Failed.map((entry) => done[Number(entry.Id)]).filter((r) => r !== undefined);
        onError(new Error(result.Failed.map((entry) => entry.Message).join('; ')), {
          phase: 'delete',
          records: undeleted,
        });
      }
    } catch (error) {
      onError(error, { phase: 'delete', records: done });
    }
  }

  function failedMessageIds(response: unknown, records: SQSRecord[]): Set<string> {
    if (response === undefined || response === null) return new Set();
    const failures =
      typeof response === 'object' ? (response as SQSBatchResponse).batchItemFailures : undefined;
    if (
      typeof response !== 'object' ||
      (failures !== undefined && failures !== null && !Array.isArray(failures))
    ) {
      return invalid(response, records);
    }
    const ids = new Set(records.map((record) => record.messageId));
    const failed = new Set<string>();
    for (const failure of failures ?? []) {
      const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
      if (typeof id !== 'string' || !ids.has(id)) return invalid(response, records);
      failed.add(id);
    }
    return failed;
  }

  function invalid(response: unknown, records: SQSRecord[]): Set<string> {
    stats.failedBatches += 1;
    onError(new InvalidBatchResponseError(response), { phase: 'invoke', records });
    return new Set(records.map((record) => record.messageId));
  }

  async function poll(instance: number): Promise<void> {
    let handler: SqsBatchHandler;
    try {
      handler = options.handler ?? (await options.createHandler(instance));
    } catch (error) {
      onError(error, { phase: 'invoke', records: [] });
      return;
    }
    while (!stopping.signal.aborted) {
      let messages: WireMessage[];
      try {
        const response = await service.receiveMessage(
          {
            QueueUrl: queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: 20,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
            ...(visibilityTimeoutSeconds === undefined
              ? {}
              : { VisibilityTimeout: visibilityTimeoutSeconds }),
          },
          { signal: stopping.signal },
        );
        messages = response.Messages ?? [];
      } catch (error) {
        onError(error, { phase: 'receive', records: [] });
        messages = [];
      }
      if (messages.length === 0) {
        await sleep(pollIntervalMs, stopping.signal);
        continue;
      }
      stats.runningBatches += 1;
      try {
        await processBatch(handler, messages);
      } finally {
        stats.runningBatches -= 1;
      }
    }
  }

  const pollers = Array.from({ length: concurrency }, (_, instance) => poll(instance));

  return {
    stats,
    async idle({ stallMs = 30_000 } = {}) {
      let seen = '';
      let movedAt = Date.now();
      for (;;) {
        const counts = { ...service.counts(queueUrl), runningBatches: stats.runningBatches };
        if (counts.visible + counts.inFlight + counts.delayed + counts.runningBatches === 0) return;
        const sign = JSON.stringify([counts, stats, activityCount()]);
        if (sign !== seen) {
          seen = sign;
          movedAt = Date.now();
        } else if (Date.now() - movedAt > stallMs) {
          throw new EventSourceNotIdleError(queueUrl, counts, stallMs);
        }
        await sleep(10);
      }
    },
    async stop() {
      stopping.abort();
      await Promise.all(pollers);
    },
  };
}

/** A received message as Lambda hands it to the function in an `SQSEvent`. */
export function toRecord(message: WireMessage, eventSourceARN: string, awsRegion: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: value.BinaryValue }),
      stringListValues: [],
      binaryListValues: [],
      dataType: value.DataType,
    };
  }
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body,
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? '',
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '',
      ...pick(attributes, ['SequenceNumber', 'MessageGroupId', 'MessageDeduplicationId', 'AWSTraceHeader']),
      ...pick(attributes, ['DeadLetterQueueSourceArn']),
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody,
    ...(message.MD5OfMessageAttributes === undefined
      ? {}
      : { md5OfMessageAttributes: message.MD5OfMessageAttributes }),
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
}

function pick(source: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => (source[name] === undefined ? [] : [[name, source[name]]])),
  );
}

function lambdaContext(functionName: string, service: SqsQueueService): Context {
  const deadline = Date.now() + 900_000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${service.region}:${service.accountId}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${requestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
