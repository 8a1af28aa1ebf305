import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface FailureQueueProps {
  /** What lands here, for the acknowledgement and the queue's readers, e.g. "SlackPost's asynchronous invocations that failed". */
  readonly holds: string;
}

/**
 * Where an asynchronous invocation that failed for good is kept (a Lambda on-failure
 * destination, an EventBridge target's dead-letter queue): encrypted, TLS only, kept 14 days.
 * Nothing consumes it; the monitoring alarms on its first message (`dlq:<id>`), and people
 * read and redrive it.
 */
export class FailureQueue extends Construct {
  readonly queue: Queue;

  constructor(scope: Construct, id: string, props: FailureQueueProps) {
    super(scope, id);
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: `This queue is itself a dead-letter queue (${props.holds}), set as a destination rather than in a redrive policy, which cdk-nag does not see.`,
    });
  }
}
