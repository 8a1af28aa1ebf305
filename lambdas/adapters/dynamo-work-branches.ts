import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../kernel/keys.ts';
import type { WorkBranchRecords } from '../tools/code/branch-ownership.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/** A conversation whose work branch was already recorded as another one. */
class WorkBranchTakenError extends Error {
  override readonly name = 'WorkBranchTakenError';
  constructor(
    readonly conversationId: string,
    readonly branch: string,
  ) {
    super(`conversation ${conversationId} already has another work branch than ${branch}`);
  }
}

/**
 * The work branch a workflow's code recorded for a conversation (`workBranch` on its `META`
 * item). Recorded once: a retried start records the same branch again, a different one is
 * refused, so nothing can move a conversation onto another branch later.
 */
export class DynamoWorkBranches extends DynamoTable implements WorkBranchRecords {
  async record(conversationId: string, branch: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: 'SET workBranch = :branch',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(workBranch) OR workBranch = :branch)',
          ExpressionAttributeValues: { ':branch': branch },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new WorkBranchTakenError(conversationId, branch);
      throw error;
    }
  }

  async recorded(conversationId: string): Promise<string | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        ConsistentRead: true,
        ProjectionExpression: 'workBranch',
      }),
    );
    return typeof Item?.workBranch === 'string' ? Item.workBranch : undefined;
  }
}
