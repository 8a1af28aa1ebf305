import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../kernel/keys.ts';
import type { McpCallBudget } from '../mcp/ports.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * The conversation's MCP call budget: the ledger's `mcpCalls` counter, raised by one only
 * while it is below the bound (one conditional update), so concurrent turns of a conversation
 * cannot pass it together. The count is the ledger's line for MCP calls.
 */
export class DynamoMcpCallBudget extends DynamoTable implements McpCallBudget {
  async take(conversationId: string, max: number): Promise<boolean> {
    const key = keys.conversation(conversationId);
    // A nested counter needs the `ledger` map: a conversation written without one gets it first.
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'SET ledger = if_not_exists(ledger, :empty)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':empty': {} },
      }),
    );
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'ADD ledger.mcpCalls :one',
          ConditionExpression: 'attribute_not_exists(ledger.mcpCalls) OR ledger.mcpCalls < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': max },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
