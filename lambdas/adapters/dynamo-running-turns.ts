import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../kernel/keys.ts';
import { DynamoTable } from './dynamo-table.ts';

/**
 * The conversation record's running turns (kernel/running-turns.ts), a DynamoDB string set:
 * turns of a round that run at once add and remove their own entries without reading.
 */
export class DynamoRunningTurns extends DynamoTable {
  async started(conversationId: string, entry: string): Promise<void> {
    await this.change(conversationId, 'ADD', entry);
  }

  async ended(conversationId: string, entry: string): Promise<void> {
    await this.change(conversationId, 'DELETE', entry);
  }

  private async change(conversationId: string, op: 'ADD' | 'DELETE', entry: string): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        UpdateExpression: `${op} runningTurns :entry`,
        // Only on a conversation that exists: a turn never creates a record of its own.
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':entry': new Set([entry]) },
      }),
    );
  }
}
