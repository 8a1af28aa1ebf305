import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable, isConditionFailure } from '../../../adapters/dynamo-table.ts';
import { ConversationNotFoundError } from '../../../kernel/errors.ts';
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
    const key = keys.conversation(conversationId);
    try {
      // A map must exist before one of its keys can be set; two paths that overlap cannot share an update.
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET fixRequests = if_not_exists(fixRequests, :empty)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':empty': {} },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConversationNotFoundError(conversationId);
      throw error;
    }
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
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
