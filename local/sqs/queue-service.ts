import { type BatchResultError, perEntry } from './batch-entries.ts';
import { invalidParameter, missingParameter, queueDoesNotExist, SqsError } from './errors.ts';
import type { FifoQueue, QueueCounts, StoredMessage } from './fifo-queue.ts';
import { LongPolls } from './long-polls.ts';
import { md5OfMessageAttributes } from './message-attributes.ts';
import {
  optionalInteger,
  optionalRecord,
  optionalString,
  optionalStringList,
  requireBatchEntries,
  requireString,
} from './params.ts';
import { standardQueuesUnsupported } from './queue-attributes.ts';
import { QueueRegistry } from './queue-registry.ts';
import { md5, parseSendRequest, toWire, type WireMessage } from './wire.ts';

export type { WireMessage } from './wire.ts';

import type { SqsQueueServiceOptions } from './service-options.ts';

export type { DeadLetterArrival, SqsQueueServiceOptions } from './service-options.ts';

/** Requests arrive as parsed JSON; each operation checks its own fields. */
export type SqsRequest = Record<string, unknown>;

export interface ReceiveOptions {
  /** Ends a long poll early with no messages (a stopping consumer). */
  signal?: AbortSignal;
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}\.fifo$/;

/**
 * The FIFO subset of Amazon SQS that the project uses, in process. Methods take and return
 * the JSON protocol's request and response bodies, so `api.ts` only moves bytes, and the
 * event source driver calls the same methods directly.
 */
export class SqsQueueService {
  readonly baseUrl: string;
  readonly region: string;
  readonly accountId: string;
  private readonly timeScale: number;
  private readonly onDeadLetter: SqsQueueServiceOptions['onDeadLetter'];
  private readonly clock: () => number;
  private readonly queues: QueueRegistry;
  private readonly longPolls: LongPolls<SqsRequest, WireMessage>;

  constructor(options: SqsQueueServiceOptions = {}) {
    this.baseUrl = (options.baseUrl ?? 'http://localhost:9324').replace(/\/+$/, '');
    this.region = options.region ?? 'us-east-1';
    this.accountId = options.accountId ?? '000000000000';
    this.timeScale = options.timeScale ?? 1;
    this.onDeadLetter = options.onDeadLetter;
    if (!(this.timeScale > 0)) throw new RangeError(`timeScale must be positive, got ${options.timeScale}`);
    const start = Date.now();
    this.clock = options.now ?? (() => start + (Date.now() - start) * this.timeScale);
    this.queues = new QueueRegistry(
      { baseUrl: this.baseUrl, region: this.region, accountId: this.accountId },
      () => this.now(),
    );
    this.longPolls = new LongPolls({
      now: () => this.now(),
      timeScale: this.timeScale,
      attempt: (queue, request) => this.receiveNow(queue, request),
    });
  }

  now(): number {
    return this.clock();
  }

  createQueue(request: SqsRequest): { QueueUrl: string } {
    const name = requireString('QueueName', request.QueueName);
    const attributes = optionalRecord('Attributes', request.Attributes) ?? {};
    if (String(attributes.FifoQueue) !== 'true') throw standardQueuesUnsupported();
    if (!QUEUE_NAME.test(name)) {
      throw invalidParameter(
        'QueueName',
        name,
        'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length, ending in .fifo.',
      );
    }
    return { QueueUrl: this.queues.create(name, attributes).url };
  }

  /** The queues by name (a sandbox that keeps its state saves and restores their contents). */
  queuesByName(): ReadonlyMap<string, FifoQueue> {
    return this.queues.byName();
  }

  getQueueUrl(request: SqsRequest): { QueueUrl: string } {
    const name = requireString('QueueName', request.QueueName);
    const queue = this.queues.byName().get(name);
    if (!queue) throw queueDoesNotExist();
    return { QueueUrl: queue.url };
  }

  listQueues(request: SqsRequest): { QueueUrls?: string[] } {
    const prefix = optionalString('QueueNamePrefix', request.QueueNamePrefix) ?? '';
    const urls = [...this.queues.byName().values()]
      .filter((queue) => queue.name.startsWith(prefix))
      .map((q) => q.url);
    return urls.length > 0 ? { QueueUrls: urls } : {};
  }

  deleteQueue(request: SqsRequest): Record<string, never> {
    const queue = this.queue(request.QueueUrl);
    this.queues.delete(queue);
    this.longPolls.cancel(queue);
    return {};
  }

  getQueueAttributes(request: SqsRequest): { Attributes?: Record<string, string> } {
    const queue = this.queue(request.QueueUrl);
    const names = optionalStringList('AttributeNames', request.AttributeNames) ?? [];
    const selected = this.queues.attributes(queue, names);
    return Object.keys(selected).length > 0 ? { Attributes: selected } : {};
  }

  setQueueAttributes(request: SqsRequest): Record<string, never> {
    const queue = this.queue(request.QueueUrl);
    const attributes = optionalRecord('Attributes', request.Attributes) ?? {};
    this.queues.setAttributes(queue, attributes);
    return {};
  }

  sendMessage(request: SqsRequest): {
    MessageId: string;
    MD5OfMessageBody: string;
    MD5OfMessageAttributes?: string;
    SequenceNumber: string;
  } {
    const queue = this.queue(request.QueueUrl);
    return this.send(queue, request);
  }

  sendMessageBatch(request: SqsRequest): {
    Successful: Array<{
      Id: string;
      MessageId: string;
      MD5OfMessageBody: string;
      MD5OfMessageAttributes?: string;
      SequenceNumber: string;
    }>;
    Failed: BatchResultError[];
  } {
    const queue = this.queue(request.QueueUrl);
    const entries = requireBatchEntries(request.Entries, 'SendMessageBatch');
    const total = entries.reduce(
      (sum, entry) =>
        sum + (typeof entry.MessageBody === 'string' ? Buffer.byteLength(entry.MessageBody) : 0),
      0,
    );
    if (total > queue.config.maximumMessageSize) {
      throw new SqsError(
        'BatchRequestTooLong',
        `Batch requests cannot be longer than ${queue.config.maximumMessageSize} bytes. You have sent ${total} bytes.`,
      );
    }
    return perEntry(entries, (entry) => ({ Id: String(entry.Id), ...this.send(queue, entry) }));
  }

  /**
   * Receives under FIFO rules. With a wait time (the request's, else the queue's
   * ReceiveMessageWaitTimeSeconds) it long-polls: it answers as soon as any message can be
   * delivered, or empty when the wait ends, the signal aborts or the service closes.
   */
  async receiveMessage(
    request: SqsRequest,
    options: ReceiveOptions = {},
  ): Promise<{ Messages?: WireMessage[] }> {
    const queue = this.queue(request.QueueUrl);
    const waitSeconds =
      optionalInteger('WaitTimeSeconds', request.WaitTimeSeconds, 0, 20) ??
      queue.config.receiveMessageWaitTimeSeconds;
    let messages = this.receiveNow(queue, request);
    if (messages.length === 0 && waitSeconds > 0) {
      messages = await this.longPolls.wait(queue, request, waitSeconds * 1000, options.signal);
    }
    return messages.length > 0 ? { Messages: messages } : {};
  }

  deleteMessage(request: SqsRequest): Record<string, never> {
    const queue = this.queue(request.QueueUrl);
    queue.delete(requireString('ReceiptHandle', request.ReceiptHandle), this.now());
    this.longPolls.notify(queue);
    return {};
  }

  deleteMessageBatch(request: SqsRequest): { Successful: Array<{ Id: string }>; Failed: BatchResultError[] } {
    const queue = this.queue(request.QueueUrl);
    const entries = requireBatchEntries(request.Entries, 'DeleteMessageBatch');
    const result = perEntry(entries, (entry) => {
      queue.delete(requireString('ReceiptHandle', entry.ReceiptHandle), this.now());
      return { Id: String(entry.Id) };
    });
    this.longPolls.notify(queue);
    return result;
  }

  changeMessageVisibility(request: SqsRequest): Record<string, never> {
    const queue = this.queue(request.QueueUrl);
    this.changeVisibility(queue, request);
    this.longPolls.notify(queue);
    return {};
  }

  changeMessageVisibilityBatch(request: SqsRequest): {
    Successful: Array<{ Id: string }>;
    Failed: BatchResultError[];
  } {
    const queue = this.queue(request.QueueUrl);
    const entries = requireBatchEntries(request.Entries, 'ChangeMessageVisibilityBatch');
    const result = perEntry(entries, (entry) => {
      this.changeVisibility(queue, entry);
      return { Id: String(entry.Id) };
    });
    this.longPolls.notify(queue);
    return result;
  }

  purgeQueue(request: SqsRequest): Record<string, never> {
    this.queue(request.QueueUrl).purge();
    return {};
  }

  /** Visible, in-flight and delayed message counts: what the event source's `idle()` waits on. */
  counts(queueUrl: string): QueueCounts {
    return this.queue(queueUrl).counts(this.now());
  }

  /** Receives waiting on the queue for a message (long polls not yet answered). */
  waitingReceives(queueUrl: string): number {
    return this.longPolls.waitingOn(this.queue(queueUrl));
  }

  queueArn(queueUrl: string): string {
    return this.queue(queueUrl).arn;
  }

  /** Re-checks waiting long polls now (timers do it for the real clock; an injected one is moved by hand). */
  poke(): void {
    for (const queue of this.queues.byName().values()) this.longPolls.notify(queue);
  }

  /** Ends every long poll (empty) and clears every timer. Short polls still work afterwards. */
  close(): void {
    this.longPolls.close();
  }

  private queue(queueUrl: unknown): FifoQueue {
    return this.queues.byUrl(queueUrl);
  }

  private send(queue: FifoQueue, request: SqsRequest) {
    const parsed = parseSendRequest(queue, request);
    const now = this.now();
    const md5OfAttributes = md5OfMessageAttributes(parsed.attributes);
    const outcome = queue.send(
      {
        body: parsed.body,
        md5OfBody: md5(parsed.body),
        messageAttributes: parsed.attributes,
        md5OfMessageAttributes: md5OfAttributes,
        groupId: parsed.groupId,
        deduplicationId: parsed.deduplicationId,
        senderId: this.accountId,
        sentTimestamp: now,
        traceHeader: parsed.traceHeader,
      },
      queue.config.delaySeconds,
      now,
    );
    if (outcome.enqueued) this.longPolls.notify(queue);
    if (outcome.enqueued && this.queues.isDeadLetterQueue(queue))
      this.onDeadLetter?.({ queue: queue.name, messageId: outcome.messageId, reason: 'sent' });
    return {
      MessageId: outcome.messageId,
      // The SDK checks this against the body it sent, so it is the request's body even for a
      // duplicate, whose id and sequence number are the original's.
      MD5OfMessageBody: md5(parsed.body),
      ...(md5OfAttributes ? { MD5OfMessageAttributes: md5OfAttributes } : {}),
      SequenceNumber: outcome.sequenceNumber,
    };
  }

  private receiveNow(queue: FifoQueue, request: SqsRequest): WireMessage[] {
    const max = optionalInteger('MaxNumberOfMessages', request.MaxNumberOfMessages, 1, 10) ?? 1;
    const visibility =
      optionalInteger('VisibilityTimeout', request.VisibilityTimeout, 0, 43_200) ??
      queue.config.visibilityTimeoutSeconds;
    const systemNames = new Set([
      ...(optionalStringList('AttributeNames', request.AttributeNames) ?? []),
      ...(optionalStringList('MessageSystemAttributeNames', request.MessageSystemAttributeNames) ?? []),
    ]);
    const attributeNames = optionalStringList('MessageAttributeNames', request.MessageAttributeNames);
    const deadLetterArn = queue.config.redrivePolicy?.deadLetterTargetArn;
    const deadLetter = deadLetterArn
      ? (message: StoredMessage) => {
          const target = this.queues.byArn(deadLetterArn);
          if (!target) return false;
          target.acceptDeadLetter(message, queue.arn);
          this.longPolls.notify(target);
          this.onDeadLetter?.({
            queue: target.name,
            messageId: message.messageId,
            reason: 'max_receive_count',
          });
          return true;
        }
      : undefined;
    const received = queue.receive(max, visibility, this.now(), deadLetter);
    return received.map((message) => toWire(message, systemNames, attributeNames));
  }

  private changeVisibility(queue: FifoQueue, request: SqsRequest): void {
    const handle = requireString('ReceiptHandle', request.ReceiptHandle);
    const timeout = optionalInteger('VisibilityTimeout', request.VisibilityTimeout, 0, 43_200);
    if (timeout === undefined) throw missingParameter('VisibilityTimeout');
    queue.changeVisibility(handle, timeout, this.now());
  }
}
