import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApprovalStore, DecisionRecord, OpenApproval } from '../kernel/approvals.ts';
import { ConversationNotFoundError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * Approvals on the conversation's record: `approvals` (the one open per kind) and
 * `decisions` (every decision, in order). Conditional single-item updates: the first press
 * that decides wins, whatever Slack retries or SQS redelivers.
 */
export class DynamoApprovalStore extends DynamoTable implements ApprovalStore {
  async openApproval(conversationId: string, approval: OpenApproval): Promise<void> {
    const key = keys.conversation(conversationId);
    try {
      // A map must exist before one of its keys can be set; two paths that overlap cannot share an update.
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET approvals = if_not_exists(approvals, :empty)',
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
          UpdateExpression: 'SET approvals.#kind = :approval, updatedAt = :now',
          // A retried post opens its approval again: one it already decided stays decided.
          ConditionExpression:
            'attribute_not_exists(approvals.#kind.decided) OR approvals.#kind.nonce <> :nonce',
          ExpressionAttributeNames: { '#kind': approval.kind },
          ExpressionAttributeValues: {
            ':approval': approval,
            ':nonce': approval.nonce,
            ':now': this.clock.now().toISOString(),
          },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return;
      throw error;
    }
  }

  async decide(conversationId: string, record: DecisionRecord): Promise<'decided' | 'lost'> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression:
            'SET approvals.#kind.decided = :record, decisions = list_append(if_not_exists(decisions, :none), :one), updatedAt = :now',
          ConditionExpression:
            'approvals.#kind.nonce = :nonce AND attribute_not_exists(approvals.#kind.decided)',
          ExpressionAttributeNames: { '#kind': record.kind },
          ExpressionAttributeValues: {
            ':record': record,
            ':none': [],
            ':one': [record],
            ':nonce': record.nonce,
            ':now': this.clock.now().toISOString(),
          },
        }),
      );
      return 'decided';
    } catch (error) {
      if (isConditionFailure(error)) return 'lost';
      throw error;
    }
  }
}
