import { randomBytes, randomUUID } from 'node:crypto';
import { SqsError } from './errors.ts';
import type { WireMessageAttributes } from './message-attributes.ts';

/** How long a deduplication id suppresses duplicates (SQS: five minutes, not configurable). */
export const DEDUPLICATION_WINDOW_MS = 5 * 60 * 1000;

export interface RedrivePolicy {
  deadLetterTargetArn: string;
  maxReceiveCount: number;
}

export interface QueueConfig {
  visibilityTimeoutSeconds: number;
  delaySeconds: number;
  maximumMessageSize: number;
  messageRetentionPeriodSeconds: number;
  receiveMessageWaitTimeSeconds: number;
  contentBasedDeduplication: boolean;
  deduplicationScope: 'queue' | 'messageGroup';
  fifoThroughputLimit: 'perQueue' | 'perMessageGroupId';
  redrivePolicy?: RedrivePolicy;
}

export interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly messageAttributes: WireMessageAttributes;
  readonly md5OfMessageAttributes: string | undefined;
  readonly groupId: string;
  readonly deduplicationId: string;
  readonly senderId: string;
  readonly sentTimestamp: number;
  readonly traceHeader: string | undefined;
  sequenceNumber: string;
  receiveCount: number;
  firstReceiveTimestamp: number | undefined;
  /** Epoch ms from which the message may be received (after a delay or a visibility timeout). */
  visibleAt: number;
  /** The receipt handle of the latest receive; only it may delete or change the message. */
  receiptHandle: string | undefined;
  deadLetterQueueSourceArn: string | undefined;
}

export type NewMessage = Omit<
  StoredMessage,
  | 'messageId'
  | 'sequenceNumber'
  | 'receiveCount'
  | 'firstReceiveTimestamp'
  | 'visibleAt'
  | 'receiptHandle'
  | 'deadLetterQueueSourceArn'
>;

export interface SendOutcome {
  messageId: string;
  sequenceNumber: string;
  /** False when the deduplication id was seen within the window: nothing was enqueued. */
  enqueued: boolean;
}

export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

/** A queue's contents as a restart keeps them (`FifoQueue.saved`). */
export interface SavedQueue {
  readonly name: string;
  readonly messages: StoredMessage[];
  readonly deduplication: [string, DeduplicationEntry][];
  readonly sequence: string;
}

interface DeduplicationEntry {
  messageId: string;
  sequenceNumber: string;
  expiresAt: number;
}

interface ReceiptHandleParts {
  queue: string;
  messageId: string;
  receive: number;
}

// SQS FIFO sequence numbers are large, increasing decimal strings; start in their range.
const SEQUENCE_BASE = 18_000_000_000_000_000_000n;

/**
 * One FIFO queue: its messages in sequence order, the deduplication window, and the group
 * locking that gives FIFO its order guarantee. Time is passed in by the caller, so the
 * queue holds no timers.
 */
export class FifoQueue {
  readonly messages: StoredMessage[] = [];
  private readonly deduplication = new Map<string, DeduplicationEntry>();
  private sequence = 0n;
  lastModifiedTimestamp: number;

  constructor(
    readonly name: string,
    readonly url: string,
    readonly arn: string,
    public config: QueueConfig,
    readonly createdTimestamp: number,
  ) {
    this.lastModifiedTimestamp = createdTimestamp;
  }

  send(message: NewMessage, delaySeconds: number, now: number): SendOutcome {
    this.expire(now);
    const key =
      this.config.deduplicationScope === 'messageGroup'
        ? `${message.groupId}\u0000${message.deduplicationId}`
        : message.deduplicationId;
    const seen = this.deduplication.get(key);
    if (seen && seen.expiresAt > now) {
      return { messageId: seen.messageId, sequenceNumber: seen.sequenceNumber, enqueued: false };
    }
    const stored: StoredMessage = {
      ...message,
      messageId: randomUUID(),
      sequenceNumber: this.nextSequenceNumber(),
      receiveCount: 0,
      firstReceiveTimestamp: undefined,
      visibleAt: now + delaySeconds * 1000,
      receiptHandle: undefined,
      deadLetterQueueSourceArn: undefined,
    };
    this.messages.push(stored);
    this.deduplication.set(key, {
      messageId: stored.messageId,
      sequenceNumber: stored.sequenceNumber,
      expiresAt: now + DEDUPLICATION_WINDOW_MS,
    });
    return { messageId: stored.messageId, sequenceNumber: stored.sequenceNumber, enqueued: true };
  }

  /** Takes a message redriven from another queue; deduplication does not apply to moves. */
  acceptDeadLetter(message: StoredMessage, sourceArn: string): void {
    message.sequenceNumber = this.nextSequenceNumber();
    message.receiptHandle = undefined;
    message.visibleAt = 0;
    message.deadLetterQueueSourceArn = sourceArn;
    this.messages.push(message);
  }

  /**
   * Picks up to `max` messages under FIFO rules and marks them in flight. A group with a
   * message in flight delivers nothing; otherwise its messages come in order, as many as
   * fit, before the next group is tried (SQS favours filling a batch from one group). A
   * message received `maxReceiveCount` times already is handed to `deadLetter` instead of
   * being delivered again, and the group carries on with its next message.
   */
  receive(
    max: number,
    visibilityTimeoutSeconds: number,
    now: number,
    deadLetter: ((message: StoredMessage) => boolean) | undefined,
  ): StoredMessage[] {
    this.expire(now);
    const groups = new Map<string, StoredMessage[]>();
    const locked = new Set<string>();
    for (const message of this.messages) {
      if (this.isInFlight(message, now)) locked.add(message.groupId);
      const group = groups.get(message.groupId);
      if (group) group.push(message);
      else groups.set(message.groupId, [message]);
    }
    const received: StoredMessage[] = [];
    const moved = new Set<StoredMessage>();
    const maxReceiveCount = this.config.redrivePolicy?.maxReceiveCount;
    for (const [groupId, group] of groups) {
      if (received.length >= max) break;
      if (locked.has(groupId)) continue;
      for (const message of group) {
        if (received.length >= max || message.visibleAt > now) break;
        if (
          maxReceiveCount !== undefined &&
          message.receiveCount >= maxReceiveCount &&
          deadLetter?.(message)
        ) {
          moved.add(message);
          continue;
        }
        message.receiveCount += 1;
        message.firstReceiveTimestamp ??= now;
        message.visibleAt = now + visibilityTimeoutSeconds * 1000;
        message.receiptHandle = encodeReceiptHandle({
          queue: this.name,
          messageId: message.messageId,
          receive: message.receiveCount,
        });
        received.push(message);
      }
    }
    if (moved.size > 0) this.remove((message) => moved.has(message));
    return received;
  }

  /** Deletes by receipt handle. A handle of a message already gone succeeds, as in SQS. */
  delete(receiptHandle: string, now: number): void {
    const message = this.findByHandle(receiptHandle);
    if (!message) return;
    this.requireCurrentHandle(message, receiptHandle, now);
    this.remove((candidate) => candidate === message);
  }

  changeVisibility(receiptHandle: string, visibilityTimeoutSeconds: number, now: number): void {
    const message = this.findByHandle(receiptHandle);
    if (!message) {
      throw new SqsError('MessageNotInflight', 'The message referred to is not in flight.');
    }
    this.requireCurrentHandle(message, receiptHandle, now);
    message.visibleAt = now + visibilityTimeoutSeconds * 1000;
  }

  purge(): void {
    this.messages.length = 0;
  }

  counts(now: number): QueueCounts {
    this.expire(now);
    const counts: QueueCounts = { visible: 0, inFlight: 0, delayed: 0 };
    for (const message of this.messages) {
      if (message.visibleAt <= now) counts.visible += 1;
      else if (message.receiptHandle !== undefined) counts.inFlight += 1;
      else counts.delayed += 1;
    }
    return counts;
  }

  /** The next moment a message becomes visible, for waking long polls; undefined if none. */
  nextVisibilityChange(now: number): number | undefined {
    let next: number | undefined;
    for (const message of this.messages) {
      if (message.visibleAt > now && (next === undefined || message.visibleAt < next))
        next = message.visibleAt;
    }
    return next;
  }

  private isInFlight(message: StoredMessage, now: number): boolean {
    return message.receiptHandle !== undefined && message.visibleAt > now;
  }

  private findByHandle(receiptHandle: string): StoredMessage | undefined {
    const parts = decodeReceiptHandle(receiptHandle);
    if (!parts || parts.queue !== this.name) {
      throw new SqsError(
        'ReceiptHandleIsInvalid',
        `The input receipt handle "${receiptHandle}" is not a valid receipt handle.`,
      );
    }
    return this.messages.find((message) => message.messageId === parts.messageId);
  }

  /**
   * FIFO queues accept only the latest receive's handle, and only while the message is still
   * in flight: once its visibility timeout has passed another consumer may hold it.
   */
  private requireCurrentHandle(message: StoredMessage, receiptHandle: string, now: number): void {
    if (message.receiptHandle !== receiptHandle || !this.isInFlight(message, now)) {
      throw new SqsError(
        'InvalidParameterValue',
        `Value ${receiptHandle} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.`,
      );
    }
  }

  private remove(predicate: (message: StoredMessage) => boolean): void {
    for (let index = this.messages.length - 1; index >= 0; index -= 1) {
      const message = this.messages[index];
      if (message && predicate(message)) this.messages.splice(index, 1);
    }
  }

  /**
   * What a sandbox that keeps its state saves of the queue: its messages (one received but not
   * deleted is visible again at once: its consumer is gone), the deduplication window and the
   * sequence.
   */
  saved(now: number): SavedQueue {
    return {
      name: this.name,
      messages: this.messages.map((message) => ({
        ...message,
        ...(message.receiptHandle !== undefined && { visibleAt: Math.min(message.visibleAt, now) }),
        receiptHandle: undefined,
      })),
      deduplication: [...this.deduplication],
      sequence: String(this.sequence),
    };
  }

  /** Takes back what `saved` kept (into a queue created afresh from the same settings). */
  takeBack(saved: SavedQueue): void {
    this.messages.splice(0, this.messages.length, ...saved.messages);
    this.deduplication.clear();
    for (const [key, entry] of saved.deduplication) this.deduplication.set(key, entry);
    this.sequence = BigInt(saved.sequence);
  }

  private expire(now: number): void {
    const retentionMs = this.config.messageRetentionPeriodSeconds * 1000;
    if (this.messages.some((message) => message.sentTimestamp + retentionMs <= now)) {
      this.remove((message) => message.sentTimestamp + retentionMs <= now);
    }
    for (const [key, entry] of this.deduplication) {
      if (entry.expiresAt <= now) this.deduplication.delete(key);
    }
  }

  private nextSequenceNumber(): string {
    this.sequence += 1n;
    return String(SEQUENCE_BASE + this.sequence);
  }
}

// Receipt handles are opaque to clients; ours name the queue, message and receive so a stale
// handle can be told apart from a forged one.
function encodeReceiptHandle(parts: ReceiptHandleParts): string {
  const nonce = randomBytes(6).toString('hex');
  return Buffer.from(`${parts.queue}\n${parts.messageId}\n${parts.receive}\n${nonce}`).toString('base64url');
}

function decodeReceiptHandle(handle: string): ReceiptHandleParts | undefined {
  const [queue, messageId, receive, nonce] = Buffer.from(handle, 'base64url').toString('utf8').split('\n');
  if (!queue || !messageId || !receive || !nonce || !/^\d+$/.test(receive)) return undefined;
  return { queue, messageId, receive: Number(receive) };
}
