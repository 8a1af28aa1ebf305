import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type ApprovalRef,
  type ApprovalStore,
  type DecisionRecord,
  OpenApproval,
} from '../kernel/approvals.ts';
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
    await this.ensureConversationMap(conversationId, 'approvals');
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET approvals.#kind = :approval, updatedAt = :now',
          // A retried post opens its approval again: what it has since (its message, a
          // decision, a parked wait) stays as it is.
          ConditionExpression: 'attribute_not_exists(approvals.#kind) OR approvals.#kind.nonce <> :nonce',
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

  async decide(conversationId: string, record: DecisionRecord) {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression:
            'SET approvals.#kind.decided = :record, decisions = list_append(if_not_exists(decisions, :none), :one), updatedAt = :now',
          // An expired approval takes no decision: the wait has already gone on without it.
          ConditionExpression:
            'approvals.#kind.nonce = :nonce AND attribute_not_exists(approvals.#kind.decided) AND attribute_not_exists(approvals.#kind.expiredAt)',
          ExpressionAttributeNames: { '#kind': record.kind },
          ExpressionAttributeValues: {
            ':record': record,
            ':none': [],
            ':one': [record],
            ':nonce': record.nonce,
            ':now': this.clock.now().toISOString(),
          },
          // Read in the write: a wait parked just before is seen here (its token), one parked
          // after sees the decision (kernel/approval-wait.ts).
          ReturnValues: 'ALL_NEW',
        }),
      );
      const approvals = out.Attributes?.approvals as Record<string, unknown> | undefined;
      return { type: 'decided' as const, approval: OpenApproval.parse(approvals?.[record.kind]) };
    } catch (error) {
      if (isConditionFailure(error)) return { type: 'lost' as const };
      throw error;
    }
  }

  async placeApproval(
    conversationId: string,
    ref: ApprovalRef,
    where: { channel: string; messageTs: string; threadTs: string },
  ): Promise<void> {
    await this.updateIfOpen(conversationId, ref, {
      UpdateExpression:
        'SET approvals.#kind.channel = :channel, approvals.#kind.messageTs = :messageTs, approvals.#kind.threadTs = :threadTs',
      ExpressionAttributeValues: {
        ':channel': where.channel,
        ':messageTs': where.messageTs,
        ':threadTs': where.threadTs,
      },
    });
  }

  async parkWait(
    conversationId: string,
    ref: ApprovalRef,
    taskToken: string,
  ): Promise<OpenApproval | undefined> {
    const written = await this.updateIfOpen(conversationId, ref, {
      UpdateExpression: 'SET approvals.#kind.taskToken = :token',
      ExpressionAttributeValues: { ':token': taskToken },
    });
    return written === undefined ? undefined : OpenApproval.parse(written);
  }

  async markWoken(conversationId: string, ref: ApprovalRef): Promise<void> {
    await this.updateIfOpen(conversationId, ref, {
      UpdateExpression: 'SET approvals.#kind.woken = :true',
      ExpressionAttributeValues: { ':true': true },
    });
  }

  async expire(conversationId: string, ref: ApprovalRef, at: string) {
    const written = await this.updateIfOpen(
      conversationId,
      ref,
      {
        // A retried expiry keeps the first time.
        UpdateExpression: 'SET approvals.#kind.expiredAt = if_not_exists(approvals.#kind.expiredAt, :at)',
        ExpressionAttributeValues: { ':at': at },
      },
      'attribute_not_exists(approvals.#kind.decided)',
    );
    if (written !== undefined) return { type: 'expired' as const, approval: OpenApproval.parse(written) };
    // Decided by a press that won the race, or replaced by a later approval of its kind.
    const read = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        ConsistentRead: true,
      }),
    );
    const current = (read.Item?.approvals as Record<string, unknown> | undefined)?.[ref.kind];
    const parsed = OpenApproval.safeParse(current);
    return {
      type: 'not_open' as const,
      approval: parsed.success && parsed.data.nonce === ref.nonce ? parsed.data : undefined,
    };
  }

  /**
   * One conditional update of the approval `ref` (its nonce must still be the open one's),
   * returning the approval as written, or undefined when the condition failed.
   */
  private async updateIfOpen(
    conversationId: string,
    ref: ApprovalRef,
    update: { UpdateExpression: string; ExpressionAttributeValues: Record<string, unknown> },
    condition?: string,
  ): Promise<unknown> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: update.UpdateExpression,
          ConditionExpression: `approvals.#kind.nonce = :nonce${condition ? ` AND ${condition}` : ''}`,
          ExpressionAttributeNames: { '#kind': ref.kind },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':nonce': ref.nonce },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return (out.Attributes?.approvals as Record<string, unknown> | undefined)?.[ref.kind];
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}
