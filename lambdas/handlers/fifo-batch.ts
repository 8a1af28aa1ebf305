import {
  FullBatchFailureError,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { setAside } from '../adapters/inbox-queue.ts';
import { requireEnv } from '../shared/env.ts';

export interface FifoBatchOptions<S extends z.ZodType> {
  /** The records' body schema (JSON). */
  schema: S;
  /** Handles one parsed record; a throw fails it and the rest of its message group. */
  handle: (body: z.infer<S>, record: SQSRecord) => Promise<void>;
  /** Where a record that does not match the schema is set aside at once. */
  deadLetterQueueUrl: () => string;
  /** What a record's body is, for the reason a record is set aside, e.g. `envelope`. */
  describe: string;
  logger: Logger;
  metrics: Metrics;
  /**
   * Handle the batch's message groups side by side, each group's records still one after the
   * other: a record no longer waits for the records of other groups before it in the batch.
   * For handlers whose records of different groups may run at once (in Lambda they already do,
   * on different instances).
   * @default false - every record in the batch's order
   */
  groupsAtOnce?: boolean;
}

let sqs: SQSClient | undefined;

/**
 * Takes a FIFO queue's records in order. A record that fails is reported back (partial batch
 * failure) together with the later records of its message group, so that group keeps its
 * order while other groups in the batch go on; after the queue's redrive count it lands in
 * the DLQ. A record that can never be parsed is set aside in the DLQ at once instead of
 * holding up its group until the redrive count runs out.
 */
export async function processFifoBatch<S extends z.ZodType>(
  event: SQSEvent,
  context: Context,
  options: FifoBatchOptions<S>,
): Promise<SQSBatchResponse> {
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    let body: z.infer<S>;
    try {
      body = options.schema.parse(JSON.parse(record.body));
    } catch (error) {
      sqs ??= new SQSClient({ useQueueUrlAsEndpoint: false });
      const reason = `record ${record.messageId} is not a valid ${options.describe}: ${(error as Error).message}`;
      await setAside(
        sqs,
        options.deadLetterQueueUrl(),
        {
          messageId: record.messageId,
          body: record.body,
          groupId: record.attributes.MessageGroupId ?? 'unknown',
        },
        reason,
      );
      options.logger.error(`set aside a record that is not a valid ${options.describe}`, {
        messageId: record.messageId,
        error,
      });
      options.metrics.addMetric('SetAside', MetricUnit.Count, 1);
      return;
    }
    await options.handle(body, record);
  };
  try {
    const groups = options.groupsAtOnce === true ? messageGroups(event.Records) : [];
    if (groups.length < 2) {
      // A processor per invocation: it holds the batch's state, and the sandbox runs several
      // invocations at once in one process (in Lambda, one instance runs one at a time).
      const processor = new SqsFifoPartialProcessorAsync();
      return await processPartialResponse(event, handleRecord, processor, {
        context,
        skipGroupOnError: true,
      });
    }
    // A processor per group; the batch answers as one processor would: the failed records in
    // the batch's order, and a throw when every record failed.
    const outcomes = await Promise.all(
      groups.map(async (records) => {
        const processor = new SqsFifoPartialProcessorAsync();
        const response = await processPartialResponse({ Records: records }, handleRecord, processor, {
          context,
          skipGroupOnError: true,
          throwOnFullBatchFailure: false,
        });
        return { failed: response.batchItemFailures.map((f) => f.itemIdentifier), errors: processor.errors };
      }),
    );
    const failed = new Set(outcomes.flatMap((outcome) => outcome.failed));
    if (failed.size === event.Records.length) {
      throw new FullBatchFailureError(outcomes.flatMap((outcome) => outcome.errors));
    }
    return {
      batchItemFailures: event.Records.filter((record) => failed.has(record.messageId)).map((record) => ({
        itemIdentifier: record.messageId,
      })),
    };
  } finally {
    options.metrics.publishStoredMetrics();
  }
}

/** The batch's records by message group, each group in the batch's order. */
function messageGroups(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const id = record.attributes.MessageGroupId ?? '';
    const group = groups.get(id);
    if (group) group.push(record);
    else groups.set(id, [record]);
  }
  return [...groups.values()];
}

/** A FIFO queue a workflow's function reads: what its records are, and its dead-letter queue. */
export interface FifoQueueRecords<S extends z.ZodType> {
  /** The records' body schema (JSON). */
  schema: S;
  /** What a record's body is, for the reason a record is set aside, e.g. `reply job`. */
  describe: string;
  /** The environment variable holding the dead-letter queue's URL (read when a record is set aside). */
  deadLetterQueueEnv: string;
}

/**
 * The handler of a function that reads one FIFO queue: each record parsed by the queue's
 * schema and given to `handle`, in order per message group, as `processFifoBatch` does.
 */
export function fifoQueueHandler<S extends z.ZodType>(
  queue: FifoQueueRecords<S>,
  handle: FifoBatchOptions<S>['handle'],
  observed: { logger: Logger; metrics: Metrics },
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const options: FifoBatchOptions<S> = {
    schema: queue.schema,
    handle,
    deadLetterQueueUrl: () => requireEnv(queue.deadLetterQueueEnv),
    describe: queue.describe,
    ...observed,
  };
  return (event, context) => processFifoBatch(event, context, options);
}
