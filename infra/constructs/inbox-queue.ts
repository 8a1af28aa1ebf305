import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface InboxQueueProps {
  /** Visibility timeout: at least six times the consumer's timeout (the Lambda ESM advice). */
  readonly visibilityTimeout: Duration;
  /** Deliveries of one message before it moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
}

/**
 * An SQS FIFO queue with its FIFO dead-letter queue: the inbox between the ingress and the
 * Router (message groups are Slack threads, deduplication ids Slack event ids), and
 * the channel replies queue between the Router and the ChannelResponder (groups are channels,
 * deduplication ids conversation and message). Senders set deduplication ids explicitly, so
 * content-based deduplication is off: two identical texts are two messages.
 */
export class InboxQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: InboxQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      fifo: true,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Queue', {
      fifo: true,
      contentBasedDeduplication: false,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: props.visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
