import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { ConversationBudgetStore, ConversationSpend } from '../agents/limits.ts';
import { CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * The conversation's budget (issue 12), on its `META` item: tokens from the ledger, its start,
 * and how its agent turns ended. Turns that ended `continue` are a number set of turn numbers
 * (`continueTurns`), and `streakFrom` is the last turn that did not: adding a turn to a set
 * is idempotent, so a retried turn is counted once.
 */
const BudgetItem = z.object({
  createdAt: z.string(),
  ledger: z
    .object({
      inputTokens: z.number().default(0),
      outputTokens: z.number().default(0),
      costMicroUsd: z.number().default(0),
    })
    .partial()
    .optional(),
  continueTurns: z.set(z.number()).optional(),
  streakFrom: z.number().optional(),
});

export class DynamoConversationBudget extends DynamoTable implements ConversationBudgetStore {
  async spend(conversationId: string): Promise<ConversationSpend | undefined> {
    const key = keys.conversation(conversationId);
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: key,
        ConsistentRead: true,
        ProjectionExpression: 'createdAt, ledger, continueTurns, streakFrom',
      }),
    );
    if (!Item) return undefined;
    const parsed = BudgetItem.safeParse(Item);
    if (!parsed.success) throw new CorruptItemError(`${key.pk}/${key.sk}`, { cause: parsed.error });
    const { createdAt, ledger, continueTurns, streakFrom = 0 } = parsed.data;
    return {
      createdAt,
      tokens: (ledger?.inputTokens ?? 0) + (ledger?.outputTokens ?? 0),
      costMicroUsd: ledger?.costMicroUsd ?? 0,
      consecutiveContinues: [...(continueTurns ?? [])].filter((turn) => turn > streakFrom).length,
    };
  }

  async recordTurnEnd(conversationId: string, turn: number, continued: boolean): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          ConditionExpression: 'attribute_exists(pk)',
          ...(continued
            ? {
                UpdateExpression: 'ADD continueTurns :turn',
                ExpressionAttributeValues: { ':turn': new Set([turn]) },
              }
            : {
                // Never moves back: a late retry of an earlier turn cannot undo a later streak.
                UpdateExpression: 'SET streakFrom = :turn',
                ConditionExpression:
                  'attribute_exists(pk) AND (attribute_not_exists(streakFrom) OR streakFrom < :turn)',
                ExpressionAttributeValues: { ':turn': turn },
              }),
        }),
      );
    } catch (error) {
      // A later turn already reset the streak, or the conversation is gone: nothing to record.
      if (isConditionFailure(error)) return;
      throw error;
    }
  }
}
