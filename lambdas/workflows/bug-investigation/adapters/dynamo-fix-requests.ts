import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable, isConditionFailure } from '../../../adapters/dynamo-table.ts';
import { keys } from '../../../kernel/keys.ts';
import type { FixRequestUse } from '../fix/fix-request.ts';

/**
 * The requests that started a fix: `fixRequests` on the conversation's record (beside the
 * kernel's fields), the id (ts) of each request to the turn whose check used it. Records
 * written before it have no such map.
 */
export class DynamoFixRequests extends DynamoTable {
  /**
   * Records that the check of `turn` starts a fix on `request`: `used_before` when another turn's
   * check did. One conditional update, so of two checks racing for one request only one records it.
   */
  async use(conversationId: string, request: string, turn: number): Promise<FixRequestUse> {
    await this.ensureConversationMap(conversationId, 'fixRequests');
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: 'SET fixRequests.#request = :turn',
          // The same turn may record it again: a retried check (the Lambda's or the state
          // machine's retry of the same task) must not refuse the fix its first attempt allowed.
          ConditionExpression: 'attribute_not_exists(fixRequests.#request) OR fixRequests.#request = :turn',
          ExpressionAttributeNames: { '#request': request },
          ExpressionAttributeValues: { ':turn': turn },
        }),
      );
      return 'recorded';
    } catch (error) {
      if (isConditionFailure(error)) return 'used_before';
      throw error;
    }
  }
}
