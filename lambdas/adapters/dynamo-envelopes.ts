import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EnvelopeStore } from '../kernel/inbox.ts';
import { keys } from '../kernel/keys.ts';
import { DynamoTable } from './dynamo-table.ts';

/**
 * Large inbox envelopes in the conversations table, one item each, expiring with the table's
 * retention. The ingress writes before it enqueues the reference, so the Router always finds
 * the item; a redelivered request overwrites it with the same bytes.
 */
export class DynamoEnvelopeStore extends DynamoTable implements EnvelopeStore {
  async putEnvelope(deduplicationId: string, body: string): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.inboxEnvelope(deduplicationId), body, ttl: this.ttl() },
      }),
    );
  }

  async getEnvelope(deduplicationId: string): Promise<string | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.inboxEnvelope(deduplicationId),
        ConsistentRead: true,
      }),
    );
    return typeof Item?.body === 'string' ? Item.body : undefined;
  }
}
