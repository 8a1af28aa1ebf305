/** A message that reached a dead-letter queue, as `SqsQueueServiceOptions.onDeadLetter` reports it. */
export interface DeadLetterArrival {
  /** The dead-letter queue's name. */
  queue: string;
  messageId: string;
  /** Moved after `maxReceiveCount` receives of its queue, or sent to the dead-letter queue directly. */
  reason: 'max_receive_count' | 'sent';
}

/** How the SQS emulator (queue-service.ts) is set up. */
export interface SqsQueueServiceOptions {
  /**
   * Base URL clients reach the API at; queue URLs are `${baseUrl}/${accountId}/${name}`.
   * Lookups use only the queue name, so a URL with another host still resolves.
   * @default 'http://localhost:9324'
   */
  baseUrl?: string;
  /** @default 'us-east-1' */
  region?: string;
  /** @default '000000000000' */
  accountId?: string;
  /**
   * Virtual milliseconds per real millisecond: 60 makes a 30 s visibility timeout pass in
   * half a second. Long-poll waits are scaled the same way.
   * @default 1
   */
  timeScale?: number;
  /** The clock (epoch ms). @default real time, sped up by `timeScale` */
  now?: () => number;
  /**
   * Called when a message arrives in a dead-letter queue (a queue another's redrive policy
   * names): moved there after `maxReceiveCount` receives, or sent there directly.
   * @default - nothing
   */
  onDeadLetter?: (arrival: DeadLetterArrival) => void;
}
