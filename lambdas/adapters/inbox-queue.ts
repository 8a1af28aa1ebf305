import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  deduplicationId,
  type EnvelopeStore,
  INLINE_ENVELOPE_BYTES,
  type InboxEnvelope,
  type InboxStoredEnvelope,
  messageGroupId,
  serializeEnvelope,
} from '../kernel/inbox.ts';

/** SendMessage to the inbox failed for a reason a retry may fix; the ingress answers 500. */
class InboxEnqueueError extends Error {
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
 * SQS refused the message itself (its contents or parameters): the same message fails the
 * same way every time, so the ingress answers 4xx instead of inviting a retry.
 */
export class InboxMessageRejectedError extends Error {
  override readonly name = 'InboxMessageRejectedError';
  constructor(
    readonly eventId: string,
    readonly code: string,
    options: { cause: unknown },
  ) {
    super(`the inbox refused event ${eventId}: ${code}`, options);
  }
}

/** SQS error codes that say the message, not the moment, is at fault. */
const REJECTED_MESSAGE_CODES: ReadonlySet<string> = new Set([
  'InvalidMessageContents',
  'InvalidParameterValue',
  'InvalidParameterValueException',
  'MissingParameter',
]);

export interface SendToInboxOptions {
  /**
   * Where an envelope larger than an SQS message goes; the queue then carries a reference.
   * @default - none: a large envelope is refused with InboxMessageRejectedError
   */
  envelopes?: EnvelopeStore;
}

/**
 * Puts one envelope on the SQS FIFO inbox: grouped by conversation key so a conversation
 * stays in order, deduplicated by its event id so a retried delivery within SQS's five-minute
 * window is dropped by SQS itself. An envelope over SQS's size limit is written to the table
 * first and referenced from the queue (same group, same deduplication id), so the Router still
 * gets it whole and in order. Returns the SQS message id.
 */
export async function sendToInbox(
  sqs: SQSClient,
  queueUrl: string,
  envelope: InboxEnvelope,
  options: SendToInboxOptions = {},
): Promise<string> {
  const dedup = deduplicationId(envelope);
  let body = serializeEnvelope(envelope);
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > INLINE_ENVELOPE_BYTES) {
    if (options.envelopes === undefined) {
      throw new InboxMessageRejectedError(envelope.eventId, 'EnvelopeTooLarge', {
        cause: new RangeError(`${bytes} bytes and no envelope store`),
      });
    }
    try {
      await options.envelopes.putEnvelope(dedup, body);
    } catch (error) {
      throw new InboxEnqueueError(envelope.eventId, faultOf(error), { cause: error });
    }
    const reference: InboxStoredEnvelope = {
      kind: 'stored',
      eventId: envelope.eventId,
      storedKind: envelope.kind,
      bytes,
    };
    body = serializeEnvelope(reference);
  }
  try {
    const out = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        MessageGroupId: messageGroupId(envelope),
        MessageDeduplicationId: dedup,
      }),
    );
    return out.MessageId ?? '';
  } catch (error) {
    const code = (error as { name?: unknown }).name;
    if (typeof code === 'string' && REJECTED_MESSAGE_CODES.has(code)) {
      throw new InboxMessageRejectedError(envelope.eventId, code, { cause: error });
    }
    throw new InboxEnqueueError(envelope.eventId, faultOf(error), { cause: error });
  }
}

function faultOf(error: unknown): string | undefined {
  const fault = (error as { $fault?: unknown }).$fault;
  return typeof fault === 'string' ? fault : undefined;
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
