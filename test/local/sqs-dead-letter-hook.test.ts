import { describe, expect, it } from 'vitest';
import { SqsQueueService } from '../../local/sqs/queue-service.ts';

describe('the SQS emulator reports dead-letter arrivals (the sandbox prints them at WARN)', () => {
  it('reports a message moved after maxReceiveCount receives and one sent to the dead-letter queue directly', async () => {
    let clock = 1_000_000;
    const arrivals: unknown[] = [];
    const service = new SqsQueueService({
      now: () => clock,
      onDeadLetter: (arrival) => arrivals.push(arrival),
    });
    const dlqUrl = service.createQueue({
      QueueName: 'inbox-dlq.fifo',
      Attributes: { FifoQueue: 'true' },
    }).QueueUrl;
    const queueUrl = service.createQueue({
      QueueName: 'inbox.fifo',
      Attributes: {
        FifoQueue: 'true',
        VisibilityTimeout: '1',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: service.queueArn(dlqUrl), maxReceiveCount: 1 }),
      },
    }).QueueUrl;
    const send = (url: string, id: string) =>
      service.sendMessage({
        QueueUrl: url,
        MessageBody: id,
        MessageGroupId: 'g',
        MessageDeduplicationId: id,
      });

    const { MessageId } = send(queueUrl, 'm-1');
    expect((await service.receiveMessage({ QueueUrl: queueUrl })).Messages).toHaveLength(1);
    expect(arrivals).toEqual([]);
    clock += 2_000;
    // Received once already: the next receive moves it to the dead-letter queue.
    expect((await service.receiveMessage({ QueueUrl: queueUrl })).Messages ?? []).toEqual([]);
    expect(arrivals).toEqual([
      { queue: 'inbox-dlq.fifo', messageId: MessageId, reason: 'max_receive_count' },
    ]);

    const direct = send(dlqUrl, 'm-2');
    send(queueUrl, 'm-3'); // not a dead-letter queue: not reported
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]).toEqual({ queue: 'inbox-dlq.fifo', messageId: direct.MessageId, reason: 'sent' });
    service.close();
  });
});
