/**
 * Runs one FIFO scenario (dedup, group order, group locking, visibility, redrive, errors)
 * with the real @aws-sdk/client-sqs against this emulator and against Python moto's
 * `moto_server`, a second, independent SQS implementation, and prints what each did.
 *
 *   npx tsx local/sqs/check-against-moto.ts
 *
 * Exits 1 if a compared observation differs, 2 if moto_server cannot be started. Rows
 * marked "info" are printed but not compared: there the two are known to differ and this
 * emulator follows AWS's documented behaviour (noted in the row).
 */
import type { ChildProcess } from 'node:child_process';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startMoto } from '../moto-server.ts';
import { listenSqsApi } from './api.ts';

interface Observation {
  name: string;
  value: unknown;
  /** Printed, not compared, with the reason. */
  info?: string;
}

const VISIBILITY_SECONDS = 1;

async function scenario(endpoint: string, prefix: string): Promise<Observation[]> {
  const sqs = new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    maxAttempts: 1,
  });
  const observations: Observation[] = [];
  const observe = (name: string, value: unknown, info?: string) =>
    observations.push({ name, value, ...(info ? { info } : {}) });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    const dlq = await sqs.send(
      new CreateQueueCommand({ QueueName: `${prefix}-dlq.fifo`, Attributes: { FifoQueue: 'true' } }),
    );
    const dlqArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn;
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: `${prefix}-inbox.fifo`,
        Attributes: {
          FifoQueue: 'true',
          VisibilityTimeout: String(VISIBILITY_SECONDS),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
        },
      }),
    );
    const send = (body: string, group: string, dedup = body) =>
      sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: body,
          MessageGroupId: group,
          MessageDeduplicationId: dedup,
        }),
      );
    const receive = async (max: number, url = QueueUrl): Promise<Message[]> =>
      (
        await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: max,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        )
      ).Messages ?? [];
    const remove = async (messages: Message[]) => {
      for (const message of messages) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
      }
    };
    const visibleCount = async () =>
      (
        await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
        )
      ).Attributes?.ApproximateNumberOfMessages;

    // Deduplication within the window.
    const first = await send('a1', 'A', 'dedup-a1');
    const duplicate = await send('a1 again', 'A', 'dedup-a1');
    const freshId =
      "moto mints a new MessageId/SequenceNumber for the dropped duplicate; the emulator answers with the original's, as the project's design asks (AWS documents only that duplicates are accepted and not delivered)";
    observe(
      'duplicate send returns the original MessageId',
      duplicate.MessageId === first.MessageId,
      freshId,
    );
    observe(
      'duplicate send returns the original SequenceNumber',
      duplicate.SequenceNumber === first.SequenceNumber,
      freshId,
    );
    observe('messages visible after a duplicate send', await visibleCount());

    // Interleaved groups, one with message attributes.
    await send('b1', 'B');
    await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'a2',
        MessageGroupId: 'A',
        MessageDeduplicationId: 'a2',
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'message' },
          count: { DataType: 'Number', StringValue: '3' },
          raw: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 2, 255]) },
        },
      }),
    );
    const batch = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'c1', MessageBody: 'c1', MessageGroupId: 'C', MessageDeduplicationId: 'c1' },
          { Id: 'b2', MessageBody: 'b2', MessageGroupId: 'B', MessageDeduplicationId: 'b2' },
          { Id: 'a3', MessageBody: 'a3', MessageGroupId: 'A', MessageDeduplicationId: 'a3' },
        ],
      }),
    );
    observe('batch send: successful entry ids', batch.Successful?.map((entry) => entry.Id).sort());
    observe('messages visible after the sends', await visibleCount());

    // Group locking: with a1 in flight, group A delivers nothing more.
    const [head] = await receive(1);
    observe('first single receive returns the oldest message', head?.Body);
    const others = await receive(10);
    observe(
      'while a1 is in flight, a receive returns no group A message',
      others.every((message) => message.Attributes?.MessageGroupId !== 'A'),
    );
    observe('...and returns the other groups in order', others.map((message) => message.Body).sort());
    await remove([...(head ? [head] : []), ...others]);

    const rest: Message[] = [];
    for (let round = 0; round < 5; round += 1) {
      const received = await receive(10);
      rest.push(...received);
      await remove(received);
    }
    observe(
      'after a1 is deleted, group A continues in order',
      rest.map((message) => message.Body),
    );
    const a2 = rest.find((message) => message.Body === 'a2');
    observe('MD5OfMessageAttributes of a2 (String, Number, Binary)', a2?.MD5OfMessageAttributes);
    observe(
      'a2 message attributes',
      a2?.MessageAttributes &&
        Object.fromEntries(
          Object.entries(a2.MessageAttributes).map(([name, value]) => [
            name,
            value.StringValue ?? Buffer.from(value.BinaryValue ?? new Uint8Array()).toString('hex'),
          ]),
        ),
    );

    // Visibility timeout and redrive.
    await send('poison', 'P');
    const counts: Array<string | undefined> = [];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const [message] = await receive(1);
      counts.push(message?.Attributes?.ApproximateReceiveCount);
      await sleep(VISIBILITY_SECONDS * 1000 + 300);
    }
    observe('receive counts of a message left undeleted', counts);
    const afterLimit = await receive(10);
    observe(
      'receive after maxReceiveCount returns',
      afterLimit.map((message) => message.Body),
    );
    const dead = await receive(10, dlq.QueueUrl);
    observe(
      'dead-letter queue holds',
      dead.map((message) => message.Body),
    );
    observe(
      'ApproximateReceiveCount of the dead letter on its first DLQ receive',
      dead[0]?.Attributes?.ApproximateReceiveCount,
    );

    // Deduplication outlives deletion: SQS "continues tracking the deduplication ID even after
    // the message has been received and deleted" (SQS Developer Guide).
    await send('once', 'D', 'dedup-once');
    await remove(await receive(1));
    await send('once again', 'D', 'dedup-once');
    observe(
      'a duplicate sent after the original was deleted is delivered',
      (await receive(10)).map((message) => message.Body),
      'moto deduplicates only against messages still queued; AWS keeps the id for the whole 5-minute window',
    );

    // An expired receipt handle.
    await send('slow', 'S');
    const [slow] = await receive(1);
    await sleep(VISIBILITY_SECONDS * 1000 + 300);
    const expiredDelete = await sqs
      .send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: slow?.ReceiptHandle }))
      .then(
        () => 'deleted',
        (error: Error) => error.name,
      );
    observe(
      'delete with a handle whose visibility timeout passed',
      expiredDelete,
      'AWS FIFO queues refuse it with InvalidParameterValue "The receipt handle has expired" (AWS re:Post knowledge center, sqs-receipt-handle-error); moto accepts it',
    );

    // Errors.
    const missing = await sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}-missing.fifo` })).then(
      () => 'found',
      (error: Error) => error.name,
    );
    observe('GetQueueUrl of a missing queue raises', missing);
    const noGroup = await sqs
      .send(new SendMessageCommand({ QueueUrl, MessageBody: 'x', MessageDeduplicationId: 'x' }))
      .then(
        () => 'sent',
        (error: Error) => error.name,
      );
    observe('SendMessage without MessageGroupId raises', noGroup);
    return observations;
  } finally {
    sqs.destroy();
  }
}

function format(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

async function main(): Promise<number> {
  let moto: { endpoint: string; process: ChildProcess };
  try {
    moto = await startMoto();
  } catch (error) {
    console.error(`moto comparison not run: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const emulator = await listenSqsApi();
  try {
    const [ours, theirs] = await Promise.all([
      scenario(emulator.endpoint, 'check'),
      scenario(moto.endpoint, 'check'),
    ]);
    let mismatches = 0;
    console.log('SQS FIFO scenario: this emulator vs moto_server\n');
    ours.forEach((observation, index) => {
      const other = theirs[index];
      const same = format(observation.value) === format(other?.value);
      const verdict = observation.info ? (same ? 'same' : 'info') : same ? 'same' : 'DIFFERENT';
      if (!observation.info && !same) mismatches += 1;
      console.log(`[${verdict}] ${observation.name}`);
      console.log(`    emulator: ${format(observation.value)}`);
      if (!same) console.log(`    moto:     ${format(other?.value)}`);
      if (observation.info && !same) console.log(`    note:     ${observation.info}`);
    });
    console.log(
      mismatches === 0
        ? `\nAll ${ours.filter((o) => !o.info).length} compared observations agree.`
        : `\n${mismatches} compared observation(s) differ.`,
    );
    return mismatches === 0 ? 0 : 1;
  } finally {
    await emulator.close();
    moto.process.kill();
  }
}

process.exitCode = await main();
