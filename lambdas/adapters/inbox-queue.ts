import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { deduplicationId, type InboxEnvelope, messageGroupId } from '../kernel/inbox.ts';

/** SendMessage to the inbox failed; the ingress answers 500 so that Slack retries. */
export class InboxEnqueueError extends Error {
  override readonly name = 'InboxEnqueueError';
  constructor(
    readonly eventId: string,
    /** `client` or `server`, as the SDK classified the failure, when it did. */
    readonly fault: string | undefined,
    options: { cause: unknown },
  ) {
    super(`could not put event ${eventId} on the inbox`, options);
  }
}

/**
 * Puts one envelope on the SQS FIFO inbox: grouped by conversation key so a thread stays
 * in order, deduplicated by Slack's event id so a retried delivery within SQS's five-minute
 * window is dropped by SQS itself. Returns the SQS message id.
 */
export async function sendToInbox(
  sqs: SQSClient,
  queueUrl: string,
  envelope: InboxEnvelope,
): Promise<string> {
  try {
    const out = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(envelope),
        MessageGroupId: messageGroupId(envelope),
        MessageDeduplicationId: deduplicationId(envelope),
      }),
    );
    return out.MessageId ?? '';
  } catch (error) {
    const fault = (error as { $fault?: unknown }).$fault;
    throw new InboxEnqueueError(envelope.eventId, typeof fault === 'string' ? fault : undefined, {
      cause: error,
    });
  }
}

/**
 * Sets an inbox record aside in the dead-letter queue at once, in its message group, with
 * the reason as a message attribute. For records no retry can ever route: left on the inbox
 * they would hold up the rest of their conversation until the redrive count ran out for them
 * all (each return of a skipped record counts as a receive).
 */
export async function setAside(
  sqs: SQSClient,
  deadLetterQueueUrl: string,
  record: { messageId: string; body: string; groupId: string },
  reason: string,
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MessageBody: record.body,
      MessageGroupId: record.groupId,
      MessageDeduplicationId: record.messageId.slice(0, 128),
      MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1_000) } },
    }),
  );
}
