import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';

/**
 * The single table of the conversation kernel. Items:
 * - `CONV#<id>` / `META`: the conversation (status, phase, participants, anchors, open wait, ledger);
 * - `CONV#<id>` / `MSG#<ts>#<channel>`: its messages, in Slack order;
 * - `CONV#<id>` / `POST#<key>`: the bot's posts, by idempotency key;
 * - `THREAD#<channel>#<threadTs>` / `THREAD`: which conversation owns a Slack thread.
 *
 * Conversations are the audit record, so the table outlives the stack (RETAIN) and has
 * point-in-time recovery; finished items expire through the `ttl` attribute instead.
 */
export class ConversationsTable extends Table {
  constructor(scope: Construct, id: string) {
    super(scope, id, {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: 'ttl',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
