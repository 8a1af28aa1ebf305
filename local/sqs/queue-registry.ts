import { queueDoesNotExist, SqsError } from './errors.ts';
import { FifoQueue } from './fifo-queue.ts';
import { requireString } from './params.ts';
import { DEFAULT_CONFIG, parseQueueAttributes, READABLE, renderQueueAttributes } from './queue-attributes.ts';

/** The service's queues: created or matched by name, found by name, URL or ARN, their attributes read and set. */

/** Where the queues live: what their URLs and ARNs are made of. */
export interface QueuePlace {
  readonly baseUrl: string;
  readonly region: string;
  readonly accountId: string;
}

export class QueueRegistry {
  private readonly queues = new Map<string, FifoQueue>();
  /** Attributes the service stores and returns without acting on them, per queue. */
  private readonly passthrough = new Map<FifoQueue, Record<string, string>>();

  constructor(
    private readonly place: QueuePlace,
    private readonly now: () => number,
  ) {}

  /**
   * Creates the queue, or returns the existing one of that name when every given attribute
   * matches it (SQS's CreateQueue is idempotent only then).
   */
  create(name: string, attributes: Record<string, unknown>): FifoQueue {
    const parsed = parseQueueAttributes(attributes, DEFAULT_CONFIG, (arn) => this.byArn(arn));
    const existing = this.queues.get(name);
    if (existing) {
      const current = renderQueueAttributes(existing, this.passthrough.get(existing) ?? {}, this.now());
      const wanted = renderQueueAttributes(
        new FifoQueue(name, existing.url, existing.arn, parsed.config, 0),
        parsed.passthrough,
        this.now(),
      );
      for (const attribute of Object.keys(attributes)) {
        if (current[attribute] !== wanted[attribute]) {
          throw new SqsError(
            'QueueNameExists',
            `A queue already exists with the same name and a different value for attribute ${attribute}`,
          );
        }
      }
      return existing;
    }
    const { baseUrl, region, accountId } = this.place;
    const queue = new FifoQueue(
      name,
      `${baseUrl}/${accountId}/${name}`,
      `arn:aws:sqs:${region}:${accountId}:${name}`,
      parsed.config,
      this.now(),
    );
    this.queues.set(name, queue);
    this.passthrough.set(queue, parsed.passthrough);
    return queue;
  }

  /** The queues by name. */
  byName(): ReadonlyMap<string, FifoQueue> {
    return this.queues;
  }

  /** The queue a request's QueueUrl names (its last path segment); QueueDoesNotExist otherwise. */
  byUrl(queueUrl: unknown): FifoQueue {
    const url = requireString('QueueUrl', queueUrl);
    const name = url.split('?')[0]?.replace(/\/+$/, '').split('/').pop() ?? '';
    const queue = this.queues.get(name);
    if (!queue) throw queueDoesNotExist();
    return queue;
  }

  byArn(arn: string): FifoQueue | undefined {
    return [...this.queues.values()].find((queue) => queue.arn === arn);
  }

  delete(queue: FifoQueue): void {
    this.queues.delete(queue.name);
    this.passthrough.delete(queue);
  }

  /** The named attributes (`All`: every one) as GetQueueAttributes returns them. */
  attributes(queue: FifoQueue, names: readonly string[]): Record<string, string> {
    for (const name of names) {
      if (name !== 'All' && !(READABLE as readonly string[]).includes(name)) {
        throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
      }
    }
    const all = renderQueueAttributes(queue, this.passthrough.get(queue) ?? {}, this.now());
    return Object.fromEntries(
      Object.entries(all).filter(([name]) => names.includes('All') || names.includes(name)),
    );
  }

  setAttributes(queue: FifoQueue, attributes: Record<string, unknown>): void {
    const parsed = parseQueueAttributes(attributes, queue.config, (arn) => this.byArn(arn));
    queue.config = parsed.config;
    queue.lastModifiedTimestamp = this.now();
    this.passthrough.set(queue, { ...this.passthrough.get(queue), ...parsed.passthrough });
  }

  /** Some queue's redrive policy moves its dead letters to this one. */
  isDeadLetterQueue(queue: FifoQueue): boolean {
    return [...this.queues.values()].some((q) => q.config.redrivePolicy?.deadLetterTargetArn === queue.arn);
  }
}
