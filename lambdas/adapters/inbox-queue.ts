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
