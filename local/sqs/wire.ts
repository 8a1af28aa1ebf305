import { createHash } from 'node:crypto';
import { invalidParameter, missingParameter, SqsError } from './errors.ts';
import type { FifoQueue, StoredMessage } from './fifo-queue.ts';
import {
  md5OfMessageAttributes,
  messageAttributesSize,
  selectMessageAttributes,
  validateMessageAttributes,
  type WireMessageAttributes,
} from './message-attributes.ts';
import { optionalInteger, optionalRecord, requireString } from './params.ts';

/** The messages' side of the SQS JSON protocol: a send request checked, a received message rendered. */

/** A received message in the SQS JSON protocol's shape. */
export interface WireMessage {
  MessageId: string;
  ReceiptHandle: string;
  MD5OfBody: string;
  Body: string;
  Attributes?: Record<string, string>;
  MessageAttributes?: WireMessageAttributes;
  MD5OfMessageAttributes?: string;
}

const GROUP_OR_DEDUP_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;
// XML 1.0 characters: what SQS allows in a message body.
const INVALID_BODY_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const SYSTEM_ATTRIBUTE_NAMES = [
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'SequenceNumber',
  'MessageDeduplicationId',
  'MessageGroupId',
  'AWSTraceHeader',
  'DeadLetterQueueSourceArn',
] as const;

/** What a SendMessage request (or a batch entry) asks to enqueue, checked as SQS checks it. */
export interface SendRequest {
  readonly body: string;
  readonly attributes: WireMessageAttributes;
  readonly groupId: string;
  readonly deduplicationId: string;
  readonly traceHeader: string | undefined;
}

/** Checks a send request against the queue: body, size, delay, group and deduplication ids. */
export function parseSendRequest(queue: FifoQueue, request: Record<string, unknown>): SendRequest {
  const body = requireString('MessageBody', request.MessageBody);
  if (INVALID_BODY_CHARACTER.test(body)) {
    throw new SqsError(
      'InvalidMessageContents',
      'Invalid binary character in the message body. Only XML 1.0 characters are allowed.',
    );
  }
  const attributes = validateMessageAttributes(request.MessageAttributes);
  const size = Buffer.byteLength(body) + messageAttributesSize(attributes);
  if (size > queue.config.maximumMessageSize) {
    throw invalidParameter(
      'MessageBody',
      `${size} bytes`,
      `Message must be shorter than ${queue.config.maximumMessageSize} bytes.`,
    );
  }
  const delay = optionalInteger('DelaySeconds', request.DelaySeconds, 0, 900);
  if (delay !== undefined && delay > 0) {
    throw invalidParameter(
      'DelaySeconds',
      delay,
      'The request include parameter that is not valid for this queue type. FIFO queues take DelaySeconds only as a queue attribute.',
    );
  }
  const groupId = request.MessageGroupId;
  if (groupId === undefined || groupId === null || groupId === '') throw missingParameter('MessageGroupId');
  if (typeof groupId !== 'string' || !GROUP_OR_DEDUP_ID.test(groupId)) {
    throw invalidParameter(
      'MessageGroupId',
      groupId,
      'MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.',
    );
  }
  const deduplicationId = deduplicationIdOf(queue, request.MessageDeduplicationId, body);
  const systemAttributes = optionalRecord('MessageSystemAttributes', request.MessageSystemAttributes);
  const trace = (systemAttributes?.AWSTraceHeader as { StringValue?: unknown } | undefined)?.StringValue;
  return {
    body,
    attributes,
    groupId,
    deduplicationId,
    traceHeader: typeof trace === 'string' ? trace : undefined,
  };
}

function deduplicationIdOf(queue: FifoQueue, value: unknown, body: string): string {
  if (value === undefined || value === null || value === '') {
    if (!queue.config.contentBasedDeduplication) {
      throw new SqsError(
        'InvalidParameterValue',
        'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
      );
    }
    return createHash('sha256').update(body).digest('hex');
  }
  if (typeof value !== 'string' || !GROUP_OR_DEDUP_ID.test(value)) {
    throw invalidParameter(
      'MessageDeduplicationId',
      value,
      'MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to 128 in length.',
    );
  }
  return value;
}

export function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

export function toWire(
  message: StoredMessage,
  systemNames: Set<string>,
  attributeNames: string[] | undefined,
): WireMessage {
  const wants = (name: string) => systemNames.has('All') || systemNames.has(name);
  const values: Record<(typeof SYSTEM_ATTRIBUTE_NAMES)[number], string | undefined> = {
    SenderId: message.senderId,
    SentTimestamp: String(message.sentTimestamp),
    ApproximateReceiveCount: String(message.receiveCount),
    ApproximateFirstReceiveTimestamp:
      message.firstReceiveTimestamp === undefined ? undefined : String(message.firstReceiveTimestamp),
    SequenceNumber: message.sequenceNumber,
    MessageDeduplicationId: message.deduplicationId,
    MessageGroupId: message.groupId,
    AWSTraceHeader: message.traceHeader,
    DeadLetterQueueSourceArn: message.deadLetterQueueSourceArn,
  };
  const attributes: Record<string, string> = {};
  for (const name of SYSTEM_ATTRIBUTE_NAMES) {
    const value = values[name];
    if (value !== undefined && wants(name)) attributes[name] = value;
  }
  const messageAttributes = selectMessageAttributes(message.messageAttributes, attributeNames);
  const md5OfAttributes = md5OfMessageAttributes(messageAttributes);
  return {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle ?? '',
    MD5OfBody: message.md5OfBody,
    Body: message.body,
    ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
    ...(md5OfAttributes
      ? { MessageAttributes: messageAttributes, MD5OfMessageAttributes: md5OfAttributes }
      : {}),
  };
}
