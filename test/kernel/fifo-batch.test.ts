import { FullBatchFailureError } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { processFifoBatch } from '../../lambdas/handlers/fifo-batch.ts';
import { fifoRecord } from '../support/sqs-record.ts';

const Body = z.object({ id: z.string() });

const context = { functionName: 'Router', getRemainingTimeInMillis: () => 30_000 } as Context;
const observed = {
  logger: { error() {} } as unknown as Logger,
  metrics: { addMetric() {}, publishStoredMetrics() {} } as unknown as Metrics,
};

function batch(handle: (id: string) => Promise<void>, records: SQSRecord[]) {
  return processFifoBatch({ Records: records }, context, {
    schema: Body,
    handle: (body) => handle(body.id),
    deadLetterQueueUrl: () => 'unused',
    describe: 'test record',
    ...observed,
    groupsAtOnce: true,
  });
}

describe('a FIFO batch with its groups at once', () => {
  it('handles a record without waiting for the records of other groups before it, each group in order', async () => {
    const log: string[] = [];
    let b1Handled: () => void = () => {};
    const b1 = new Promise<void>((resolve) => {
      b1Handled = resolve;
    });

    const response = await batch(
      async (id) => {
        log.push(`start ${id}`);
        // a1 comes first in the batch, yet finishes only once b1 (another group) was handled.
        if (id === 'a1') await b1;
        if (id === 'b1') b1Handled();
        log.push(`end ${id}`);
      },
      [fifoRecord('a1', 'A'), fifoRecord('a2', 'A'), fifoRecord('b1', 'B'), fifoRecord('b2', 'B')],
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('end a1'));
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('start b2'));
  });

  it("reports a failed record and the rest of its group in the batch's order, while other groups go on", async () => {
    const handled: string[] = [];

    const response = await batch(
      async (id) => {
        if (id === 'a2') throw new Error('cannot route a2');
        handled.push(id);
      },
      [
        fifoRecord('a1', 'A'),
        fifoRecord('b1', 'B'),
        fifoRecord('a2', 'A'),
        fifoRecord('b2', 'B'),
        fifoRecord('a3', 'A'),
      ],
    );

    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a2', 'a3']);
    expect(handled.sort()).toEqual(['a1', 'b1', 'b2']);
  });

  it('throws when every record of the batch failed, as a whole batch failure', async () => {
    await expect(
      batch(
        async (id) => {
          throw new Error(`cannot route ${id}`);
        },
        [fifoRecord('a1', 'A'), fifoRecord('b1', 'B')],
      ),
    ).rejects.toBeInstanceOf(FullBatchFailureError);
  });
});
