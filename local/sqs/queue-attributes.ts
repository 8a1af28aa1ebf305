import { invalidParameter, SqsError } from './errors.ts';
import type { FifoQueue, QueueConfig, RedrivePolicy } from './fifo-queue.ts';
import { optionalInteger } from './params.ts';

/** Queue attributes SQS accepts on CreateQueue/SetQueueAttributes. */
const SETTABLE = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'RedrivePolicy',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
  'Policy',
  'RedriveAllowPolicy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
] as const;

/** Attributes GetQueueAttributes can name (plus `All`). */
export const READABLE = [
  ...SETTABLE,
  'QueueArn',
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
] as const;

export const DEFAULT_CONFIG: QueueConfig = {
  visibilityTimeoutSeconds: 30,
  delaySeconds: 0,
  maximumMessageSize: 262_144,
  messageRetentionPeriodSeconds: 345_600,
  receiveMessageWaitTimeSeconds: 0,
  contentBasedDeduplication: false,
  deduplicationScope: 'queue',
  fifoThroughputLimit: 'perQueue',
};

export interface ParsedAttributes {
  config: QueueConfig;
  /** Accepted attributes the emulator stores and echoes but does not act on (Policy, KMS...). */
  passthrough: Record<string, string>;
}

/**
 * Applies `attributes` over `base`. `findQueueByArn` checks a redrive target exists and is a
 * FIFO queue, as SQS does when the policy is set.
 */
export function parseQueueAttributes(
  attributes: Record<string, unknown>,
  base: QueueConfig,
  findQueueByArn: (arn: string) => FifoQueue | undefined,
): ParsedAttributes {
  const config: QueueConfig = { ...base };
  const passthrough: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (!(SETTABLE as readonly string[]).includes(name)) {
      throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
    }
    switch (name) {
      case 'DelaySeconds':
        config.delaySeconds = integerAttribute(name, value, 0, 900);
        break;
      case 'MaximumMessageSize':
        config.maximumMessageSize = integerAttribute(name, value, 1024, 1_048_576);
        break;
      case 'MessageRetentionPeriod':
        config.messageRetentionPeriodSeconds = integerAttribute(name, value, 60, 1_209_600);
        break;
      case 'ReceiveMessageWaitTimeSeconds':
        config.receiveMessageWaitTimeSeconds = integerAttribute(name, value, 0, 20);
        break;
      case 'VisibilityTimeout':
        config.visibilityTimeoutSeconds = integerAttribute(name, value, 0, 43_200);
        break;
      case 'FifoQueue':
        if (String(value) !== 'true') throw standardQueuesUnsupported();
        break;
      case 'ContentBasedDeduplication':
        config.contentBasedDeduplication = booleanAttribute(name, value);
        break;
      case 'DeduplicationScope':
        config.deduplicationScope = oneOf(name, value, ['queue', 'messageGroup'] as const);
        break;
      case 'FifoThroughputLimit':
        config.fifoThroughputLimit = oneOf(name, value, ['perQueue', 'perMessageGroupId'] as const);
        break;
      case 'RedrivePolicy':
        if (value === '' || value === undefined) delete config.redrivePolicy;
        else config.redrivePolicy = parseRedrivePolicy(value, findQueueByArn);
        break;
      default:
        passthrough[name] = String(value);
    }
  }
  return { config, passthrough };
}

export function standardQueuesUnsupported(): SqsError {
  return new SqsError(
    'InvalidParameterValue',
    'This SQS emulator serves FIFO queues only: set Attributes.FifoQueue to "true" and end the queue name with ".fifo".',
  );
}

function parseRedrivePolicy(
  value: unknown,
  findQueueByArn: (arn: string) => FifoQueue | undefined,
): RedrivePolicy {
  let policy: unknown = value;
  if (typeof value === 'string') {
    try {
      policy = JSON.parse(value);
    } catch (cause) {
      throw new SqsError(
        'InvalidAttributeValue',
        `Invalid value for the parameter RedrivePolicy. Reason: ${cause}`,
      );
    }
  }
  const { deadLetterTargetArn, maxReceiveCount } = (policy ?? {}) as Record<string, unknown>;
  if (typeof deadLetterTargetArn !== 'string' || deadLetterTargetArn === '') {
    throw new SqsError(
      'InvalidAttributeValue',
      'Value for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain deadLetterTargetArn.',
    );
  }
  const count = optionalInteger('RedrivePolicy.maxReceiveCount', maxReceiveCount, 1, 1000);
  if (count === undefined) {
    throw new SqsError(
      'InvalidAttributeValue',
      'Value for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain maxReceiveCount.',
    );
  }
  if (!findQueueByArn(deadLetterTargetArn)) {
    throw new SqsError(
      'InvalidAttributeValue',
      `Value ${JSON.stringify(value)} for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist.`,
    );
  }
  return { deadLetterTargetArn, maxReceiveCount: count };
}

/** The attribute values GetQueueAttributes returns, every one as a string like SQS. */
export function renderQueueAttributes(
  queue: FifoQueue,
  passthrough: Record<string, string>,
  now: number,
): Record<string, string> {
  const counts = queue.counts(now);
  const { config } = queue;
  const rendered: Record<string, string> = {
    QueueArn: queue.arn,
    ApproximateNumberOfMessages: String(counts.visible),
    ApproximateNumberOfMessagesNotVisible: String(counts.inFlight),
    ApproximateNumberOfMessagesDelayed: String(counts.delayed),
    CreatedTimestamp: String(Math.floor(queue.createdTimestamp / 1000)),
    LastModifiedTimestamp: String(Math.floor(queue.lastModifiedTimestamp / 1000)),
    VisibilityTimeout: String(config.visibilityTimeoutSeconds),
    MaximumMessageSize: String(config.maximumMessageSize),
    MessageRetentionPeriod: String(config.messageRetentionPeriodSeconds),
    DelaySeconds: String(config.delaySeconds),
    ReceiveMessageWaitTimeSeconds: String(config.receiveMessageWaitTimeSeconds),
    FifoQueue: 'true',
    ContentBasedDeduplication: String(config.contentBasedDeduplication),
    DeduplicationScope: config.deduplicationScope,
    FifoThroughputLimit: config.fifoThroughputLimit,
    ...passthrough,
  };
  if (config.redrivePolicy) rendered.RedrivePolicy = JSON.stringify(config.redrivePolicy);
  return rendered;
}

function integerAttribute(name: string, value: unknown, min: number, max: number): number {
  const parsed = optionalInteger(name, value, min, max);
  if (parsed === undefined)
    throw new SqsError('InvalidAttributeValue', `Invalid value for the parameter ${name}.`);
  return parsed;
}

function booleanAttribute(name: string, value: unknown): boolean {
  const text = String(value).toLowerCase();
  if (text !== 'true' && text !== 'false') throw invalidParameter(name, value, 'must be true or false.');
  return text === 'true';
}

function oneOf<const T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  const match = allowed.find((candidate) => candidate === value);
  if (!match) throw invalidParameter(name, value, `must be one of ${allowed.join(', ')}.`);
  return match;
}
