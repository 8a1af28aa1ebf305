import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Conversation } from '../kernel/model.ts';
import type { ReconcilerStore } from '../kernel/reconcile.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * The reconciler's reads and writes. The sweeps scan the table for conversation items with a
 * filter: fine for a sweep every few minutes over a table of thousands of conversations;
 * past that, a sparse index on a "needs attention" attribute would replace the scan.
 */
export class DynamoReconcilerStore extends DynamoTable implements ReconcilerStore {
  async startingWithoutExecution(beforeIso: string): Promise<Conversation[]> {
    return this.scanConversations(
      'sk = :meta AND phase = :starting AND attribute_not_exists(executionName) AND createdAt < :before AND #status = :active',
      { ':starting': 'starting', ':before': beforeIso, ':active': 'active' },
    );
  }

  async waitingSince(beforeIso: string): Promise<Conversation[]> {
    return this.scanConversations('sk = :meta AND attribute_exists(#wait) AND #wait.since < :before', {
      ':before': beforeIso,
    });
  }

  async countRepair(conversationId: string): Promise<number> {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `CONV#${conversationId}`, sk: 'META' },
        UpdateExpression: 'ADD reconcileRepairs :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.reconcileRepairs ?? 1);
  }

  async markFailed(conversationId: string, reason: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `CONV#${conversationId}`, sk: 'META' },
          UpdateExpression:
            'SET #status = :failed, phase = :failed, failureReason = :reason, updatedAt = :now',
          // Finished meanwhile (an execution got going after all): leave it.
          ConditionExpression: 'attribute_exists(pk) AND #status IN (:active, :pending)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':failed': 'failed',
            ':reason': reason.slice(0, 2_000),
            ':now': this.clock.now().toISOString(),
            ':active': 'active',
            ':pending': 'pending_verification',
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async scanConversations(filter: string, values: Record<string, unknown>): Promise<Conversation[]> {
    const found: Conversation[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: filter,
          ExpressionAttributeNames: {
            ...(filter.includes('#status') ? { '#status': 'status' } : {}),
            ...(filter.includes('#wait') ? { '#wait': 'wait' } : {}),
          },
          ExpressionAttributeValues: { ':meta': 'META', ...values },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const parsed = Conversation.safeParse(item);
        if (parsed.success) found.push(parsed.data);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  }
}
