import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type ReplyJob, replyJobDeduplicationId } from '../model.ts';
import type { ReplyQueue } from '../ports.ts';

/**
 * The channel replies queue (SQS FIFO): grouped by channel, so the responder decides and
 * answers one channel's messages in order; deduplicated per message of a conversation, so a
 * redelivered inbox record hands its message over once within SQS's five-minute window.
 */
export class SqsReplyQueue implements ReplyQueue {
  constructor(private readonly options: { sqs: SQSClient; queueUrl: string }) {}

  async enqueue(job: ReplyJob): Promise<void> {
    await this.options.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: JSON.stringify(job),
        MessageGroupId: job.channel,
        MessageDeduplicationId: replyJobDeduplicationId(job),
      }),
    );
  }
}
