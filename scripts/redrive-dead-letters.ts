/**
 * Redrive of a FIFO dead-letter queue: moves what the inbox set aside back into it,
 * in order per message group, once the cause is fixed (a Step Functions outage longer than the
 * inbox's receives, a bad deployment). The Router is idempotent per Slack message (I1), so a
 * record that did get through before is stored once and its start completes once.
 *
 *   npx tsx scripts/redrive-dead-letters.ts <dead-letter queue URL> <inbox queue URL> [max]
 *
 * In AWS, `aws sqs start-message-move-task` does the same for the whole queue; this script
 * also runs against the sandbox (AWS_ENDPOINT_URL_SQS), and moves at most `max` messages.
 */
import { pathToFileURL } from 'node:url';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';

export interface RedriveOptions {
  sqs: SQSClient;
  /** The dead-letter queue's URL. */
  from: string;
  /** The queue to move the messages back to (the inbox). */
  to: string;
  /** @default 1000 */
  max?: number;
}

/** Moves up to `max` messages; each is sent to `to` before it is deleted from `from`. */
export async function redriveDeadLetters(options: RedriveOptions): Promise<{ moved: number }> {
  const max = options.max ?? 1_000;
  let moved = 0;
  while (moved < max) {
    const { Messages = [] } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.from,
        MaxNumberOfMessages: Math.min(10, max - moved),
        MessageSystemAttributeNames: ['MessageGroupId'],
        MessageAttributeNames: ['All'],
        VisibilityTimeout: 60,
        WaitTimeSeconds: 0,
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      await options.sqs.send(
        new SendMessageCommand({
          QueueUrl: options.to,
          MessageBody: message.Body ?? '',
          MessageGroupId: message.Attributes?.MessageGroupId ?? 'redrive',
          // A new id: the original may still be inside the inbox's five-minute dedup window.
          MessageDeduplicationId: `redrive-${message.MessageId}`,
          ...(message.MessageAttributes ? { MessageAttributes: message.MessageAttributes } : {}),
        }),
      );
      await options.sqs.send(
        new DeleteMessageCommand({ QueueUrl: options.from, ReceiptHandle: message.ReceiptHandle }),
      );
      moved += 1;
    }
  }
  return { moved };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [from, to, max] = process.argv.slice(2);
  if (!from || !to) {
    console.error(
      'usage: npx tsx scripts/redrive-dead-letters.ts <dead-letter queue URL> <inbox queue URL> [max]',
    );
    process.exit(2);
  }
  const result = await redriveDeadLetters({
    sqs: new SQSClient({}),
    from,
    to,
    ...(max ? { max: Number(max) } : {}),
  });
  console.log(`moved ${result.moved} message(s) from ${from} to ${to}`);
}
