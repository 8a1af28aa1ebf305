import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenSqsApi } from '../../local/sqs/api.ts';
import { SqsQueueService } from '../../local/sqs/queue-service.ts';
import { until } from '../support/eventually.ts';

/** The SQS emulator's server, as listenSqsApi starts it. */
type SqsApiServer = Awaited<ReturnType<typeof listenSqsApi>>;

// The real SDK against the emulator's HTTP API, with a hand-moved clock so visibility
// timeouts and the deduplication window pass without waiting.
let clock: number;
let api: SqsApiServer;
let sqs: SQSClient;

beforeEach(async () => {
  clock = Date.UTC(2025, 0, 1);
  api = await listenSqsApi({ now: () => clock });
  sqs = new SQSClient({
    endpoint: api.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});

afterEach(async () => {
  sqs.destroy();
  await api.close();
});

async function fifoQueue(name: string, attributes: Record<string, string> = {}): Promise<string> {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { FifoQueue: 'true', ...attributes } }),
  );
  if (!QueueUrl) throw new Error('CreateQueue returned no QueueUrl');
  return QueueUrl;
}

function send(QueueUrl: string, body: string, group: string, dedup = body.replaceAll(' ', '-')) {
  return sqs.send(
    new SendMessageCommand({
      QueueUrl,
      MessageBody: body,
      MessageGroupId: group,
      MessageDeduplicationId: dedup,
    }),
  );
}

async function receive(QueueUrl: string, max = 10, visibility?: number): Promise<Message[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl,
      MaxNumberOfMessages: max,
      MessageSystemAttributeNames: ['All'],
      ...(visibility === undefined ? {} : { VisibilityTimeout: visibility }),
    }),
  );
  return Messages ?? [];
}

async function deleteAll(QueueUrl: string, messages: Message[]): Promise<void> {
  for (const message of messages) {
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
  }
}

async function counts(QueueUrl: string) {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

const bodies = (messages: Message[]) => messages.map((message) => message.Body);

describe('SQS emulator through @aws-sdk/client-sqs', () => {
  it('sends, receives and deletes a message with its system and message attributes', async () => {
    const queueUrl = await fifoQueue('inbox.fifo');
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: '{"hello":"world"}',
        MessageGroupId: 'C1:1700000000.000100',
        MessageDeduplicationId: 'Ev001',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'message' } },
      }),
    );

    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const [message] = Messages;
    expect(message).toMatchObject({
      MessageId: sent.MessageId,
      Body: '{"hello":"world"}',
      Attributes: {
        ApproximateReceiveCount: '1',
        MessageGroupId: 'C1:1700000000.000100',
        MessageDeduplicationId: 'Ev001',
        SequenceNumber: sent.SequenceNumber,
        SentTimestamp: String(clock),
      },
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'message' } },
      MD5OfMessageAttributes: sent.MD5OfMessageAttributes,
    });

    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message?.ReceiptHandle }));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('answers a duplicate within the window with the original MessageId and enqueues nothing', async () => {
    const queueUrl = await fifoQueue('dedup.fifo');
    const first = await send(queueUrl, 'first', 'g', 'Ev-same');
    clock += 4 * 60 * 1000;
    const duplicate = await send(queueUrl, 'retry of first', 'g', 'Ev-same');

    expect(duplicate.MessageId).toBe(first.MessageId);
    expect(duplicate.SequenceNumber).toBe(first.SequenceNumber);
    expect(bodies(await receive(queueUrl))).toEqual(['first']);
  });

  it('accepts the same deduplication id again once the five-minute window has passed', async () => {
    const queueUrl = await fifoQueue('dedup-window.fifo');
    const first = await send(queueUrl, 'first', 'g', 'Ev-same');
    clock += 5 * 60 * 1000 + 1;
    const second = await send(queueUrl, 'second', 'g', 'Ev-same');

    expect(second.MessageId).not.toBe(first.MessageId);
    expect(BigInt(second.SequenceNumber ?? 0)).toBeGreaterThan(BigInt(first.SequenceNumber ?? 0));
  });

  it('deduplicates on the body when the queue has content-based deduplication', async () => {
    const queueUrl = await fifoQueue('content.fifo', { ContentBasedDeduplication: 'true' });
    const first = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x', MessageGroupId: 'g' }),
    );
    const again = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x', MessageGroupId: 'g' }),
    );
    const other = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'y', MessageGroupId: 'g' }),
    );

    expect(again.MessageId).toBe(first.MessageId);
    expect(other.MessageId).not.toBe(first.MessageId);
  });

  it('keeps each group in send order when groups are interleaved', async () => {
    const queueUrl = await fifoQueue('order.fifo');
    for (const [body, group] of [
      ['a1', 'A'],
      ['b1', 'B'],
      ['a2', 'A'],
      ['c1', 'C'],
      ['b2', 'B'],
      ['a3', 'A'],
    ] as const) {
      await send(queueUrl, body, group);
    }

    const seen: Message[] = [];
    for (let round = 0; round < 10 && seen.length < 6; round += 1) {
      const batch = await receive(queueUrl, 2);
      seen.push(...batch);
      await deleteAll(queueUrl, batch);
    }

    const inGroup = (group: string) =>
      seen.filter((message) => message.Attributes?.MessageGroupId === group).map((message) => message.Body);
    expect(inGroup('A')).toEqual(['a1', 'a2', 'a3']);
    expect(inGroup('B')).toEqual(['b1', 'b2']);
    expect(inGroup('C')).toEqual(['c1']);
  });

  it('returns several messages of one group in order in a single receive', async () => {
    const queueUrl = await fifoQueue('same-group.fifo');
    await send(queueUrl, 'm1', 'T');
    await send(queueUrl, 'm2', 'T');
    await send(queueUrl, 'm3', 'T');

    expect(bodies(await receive(queueUrl))).toEqual(['m1', 'm2', 'm3']);
  });

  it('delivers nothing more from a group while one of its messages is in flight', async () => {
    const queueUrl = await fifoQueue('locked.fifo');
    await send(queueUrl, 'a1', 'A');
    await send(queueUrl, 'a2', 'A');
    await send(queueUrl, 'b1', 'B');

    const [a1] = await receive(queueUrl, 1);
    expect(a1?.Body).toBe('a1');
    expect(bodies(await receive(queueUrl))).toEqual(['b1']);
    expect(await receive(queueUrl)).toEqual([]);

    await deleteAll(queueUrl, a1 ? [a1] : []);
    expect(bodies(await receive(queueUrl))).toEqual(['a2']);
  });

  it('redelivers after the visibility timeout with ApproximateReceiveCount incremented', async () => {
    const queueUrl = await fifoQueue('visibility.fifo', { VisibilityTimeout: '30' });
    await send(queueUrl, 'retry me', 'g');

    const [first] = await receive(queueUrl);
    clock += 29_000;
    expect(await receive(queueUrl)).toEqual([]);
    clock += 1_000;
    const [second] = await receive(queueUrl);

    expect(first?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(second?.MessageId).toBe(first?.MessageId);
    expect(second?.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(second?.ReceiptHandle).not.toBe(first?.ReceiptHandle);
  });

  it('refuses a delete with a receipt handle whose visibility timeout has passed', async () => {
    const queueUrl = await fifoQueue('expired-handle.fifo');
    await send(queueUrl, 'slow consumer', 'g');
    const [message] = await receive(queueUrl, 1, 10);
    clock += 11_000;

    await expect(
      sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message?.ReceiptHandle })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('expired') });
    expect(bodies(await receive(queueUrl))).toEqual(['slow consumer']);
  });

  it('releases a group at once when a message is made visible with ChangeMessageVisibility 0', async () => {
    const queueUrl = await fifoQueue('release.fifo');
    await send(queueUrl, 'a1', 'A');
    const [a1] = await receive(queueUrl);

    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: a1?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );

    const [again] = await receive(queueUrl);
    expect(again?.MessageId).toBe(a1?.MessageId);
    expect(again?.Attributes?.ApproximateReceiveCount).toBe('2');
  });

  it('moves a message to the dead-letter queue on the receive after its last allowed one', async () => {
    const dlqUrl = await fifoQueue('inbox-dlq.fifo');
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    const queueUrl = await fifoQueue('inbox-redrive.fifo', {
      VisibilityTimeout: '10',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: 2 }),
    });
    await send(queueUrl, 'poison', 'A');
    await send(queueUrl, 'next in group', 'A');

    const receiveCounts: Array<string | undefined> = [];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const [message] = await receive(queueUrl, 1);
      receiveCounts.push(message?.Attributes?.ApproximateReceiveCount);
      clock += 10_000;
    }
    const afterLimit = await receive(queueUrl, 1);
    const [deadLetter] = await receive(dlqUrl);

    expect(receiveCounts).toEqual(['1', '2']);
    expect(bodies(afterLimit)).toEqual(['next in group']);
    expect(deadLetter).toMatchObject({
      Body: 'poison',
      Attributes: {
        MessageGroupId: 'A',
        DeadLetterQueueSourceArn: expect.stringContaining('inbox-redrive.fifo'),
      },
    });
  });

  it('sends a batch in order and reports an invalid entry without failing the others', async () => {
    const queueUrl = await fifoQueue('batch.fifo');
    const result = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'one', MessageBody: 'b1', MessageGroupId: 'g', MessageDeduplicationId: 'd1' },
          { Id: 'two', MessageBody: 'b2', MessageGroupId: 'g', MessageDeduplicationId: 'd2' },
          { Id: 'bad', MessageBody: 'b3', MessageDeduplicationId: 'd3' },
        ],
      }),
    );

    expect(result.Successful?.map((entry) => entry.Id)).toEqual(['one', 'two']);
    expect(result.Failed).toEqual([
      expect.objectContaining({ Id: 'bad', SenderFault: true, Code: 'MissingParameter' }),
    ]);
    const [one, two] = result.Successful ?? [];
    expect(BigInt(two?.SequenceNumber ?? 0)).toBeGreaterThan(BigInt(one?.SequenceNumber ?? 0));
    const received = await receive(queueUrl);
    expect(bodies(received)).toEqual(['b1', 'b2']);

    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: received.map((message, index) => ({
          Id: `m${index}`,
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
    expect(deleted.Successful).toHaveLength(2);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('answers a long poll as soon as a message arrives', async () => {
    const queueUrl = await fifoQueue('long-poll.fifo');
    const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 20 }));
    await until(() => api.service.waitingReceives(queueUrl) === 1, 'the long poll to wait');
    await send(queueUrl, 'arrived', 'g');

    const { Messages } = await polling;
    expect(bodies(Messages ?? [])).toEqual(['arrived']);
  });

  it('answers a long poll with no messages when the wait ends', async () => {
    const queueUrl = await fifoQueue('long-poll-empty.fifo');
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }),
    );
    expect(Messages).toBeUndefined();
  });

  it('counts visible and in-flight messages and empties on PurgeQueue', async () => {
    const queueUrl = await fifoQueue('counts.fifo');
    await send(queueUrl, 'a1', 'A');
    await send(queueUrl, 'b1', 'B');
    await receive(queueUrl, 1);
    expect(await counts(queueUrl)).toEqual({ visible: 1, inFlight: 1 });

    await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('raises the modelled QueueDoesNotExist error for an unknown queue', async () => {
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'missing.fifo' }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('refuses a standard queue with a message that says only FIFO is served', async () => {
    await expect(sqs.send(new CreateQueueCommand({ QueueName: 'standard' }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('FIFO queues only'),
    });
  });

  it('refuses a send without MessageGroupId and enqueues nothing', async () => {
    const queueUrl = await fifoQueue('no-group.fifo');
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x', MessageDeduplicationId: 'd' })),
    ).rejects.toMatchObject({ name: 'MissingParameter' });
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('returns the existing queue for a repeated CreateQueue with the same attributes', async () => {
    const first = await fifoQueue('same.fifo', { VisibilityTimeout: '60' });
    expect(await fifoQueue('same.fifo', { VisibilityTimeout: '60' })).toBe(first);
    await expect(fifoQueue('same.fifo', { VisibilityTimeout: '5' })).rejects.toMatchObject({
      name: 'QueueNameExists',
    });
  });
});

describe('SQS emulator long polls, in process', () => {
  // 20x time: a 1 s visibility timeout ends after 50 ms.
  let service: SqsQueueService;
  let queueUrl: string;

  beforeEach(() => {
    service = new SqsQueueService({ timeScale: 20 });
    queueUrl = service.createQueue({
      QueueName: 'polls.fifo',
      Attributes: { FifoQueue: 'true', VisibilityTimeout: '1' },
    }).QueueUrl;
    service.sendMessage({
      QueueUrl: queueUrl,
      MessageBody: 'm1',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'm1',
    });
  });

  afterEach(() => service.close());

  it('wakes a long poll when the in-flight message it waits behind times out', async () => {
    const first = await service.receiveMessage({ QueueUrl: queueUrl });

    const again = await service.receiveMessage({
      QueueUrl: queueUrl,
      WaitTimeSeconds: 20,
      AttributeNames: ['ApproximateReceiveCount'],
    });

    expect(again.Messages?.[0]?.MessageId).toBe(first.Messages?.[0]?.MessageId);
    expect(again.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
  });

  it('wakes a long poll when a delete unlocks the group it waits on', async () => {
    service.sendMessage({
      QueueUrl: queueUrl,
      MessageBody: 'm2',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'm2',
    });
    const [m1] =
      (await service.receiveMessage({ QueueUrl: queueUrl, VisibilityTimeout: 600 })).Messages ?? [];

    const waiting = service.receiveMessage({ QueueUrl: queueUrl, WaitTimeSeconds: 20 });
    service.deleteMessage({ QueueUrl: queueUrl, ReceiptHandle: m1?.ReceiptHandle });

    expect((await waiting).Messages?.map((message) => message.Body)).toEqual(['m2']);
  });

  it('ends waiting long polls empty on close', async () => {
    await service.receiveMessage({ QueueUrl: queueUrl, VisibilityTimeout: 600 });
    const waiting = service.receiveMessage({ QueueUrl: queueUrl, WaitTimeSeconds: 20 });

    service.close();

    expect(await waiting).toEqual({});
  });
});
