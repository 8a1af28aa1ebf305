import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../kernel/keys.ts';
import type { Ledger } from '../kernel/model.ts';
import { type LedgerAddition, writeAddingToLedger } from './conversation-fields.ts';
import { CONVERSATION_EXISTS, type TurnEnd, turnEndUpdate } from './dynamo-conversation-budget.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * The conversation record's running turns (kernel/running-turns.ts), a DynamoDB string set:
 * turns of a round that run at once add and remove their own entries without reading.
 */
export class DynamoRunningTurns extends DynamoTable {
  /** Adds the turn's entry; returns the record as this update left it (what the turn reads at its start). */
  async started(conversationId: string, entry: string): Promise<Record<string, unknown>> {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        UpdateExpression: 'ADD runningTurns :entry',
        // Only on a conversation that exists: a turn never creates a record of its own.
        ConditionExpression: CONVERSATION_EXISTS,
        ExpressionAttributeValues: { ':entry': new Set([entry]) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ?? {};
  }

  /**
   * Removes the turn's entry, adding `ledger` (the turn's time) and noting how the turn ended
   * (`turnEnd`, for its streak of continuations) in the same update. When the streak's
   * condition fails (a later turn reset it already: this is a late retry), the entry comes off
   * and the time is added all the same, in a second update without the note.
   */
  async ended(
    conversationId: string,
    entry: string,
    ledger: Partial<Ledger> = {},
    turnEnd?: TurnEnd,
  ): Promise<void> {
    const end = (noted?: TurnEnd) =>
      writeAddingToLedger(this.doc, this.tableName, conversationId, ledger, (addition) =>
        this.remove(conversationId, entry, addition, noted),
      );
    try {
      await end(turnEnd);
    } catch (error) {
      if (turnEnd === undefined || turnEnd.continued || !isConditionFailure(error)) throw error;
      await end();
    }
  }

  private async remove(
    conversationId: string,
    entry: string,
    addition: LedgerAddition | undefined,
    turnEnd: TurnEnd | undefined,
  ): Promise<void> {
    const noted = turnEnd === undefined ? undefined : turnEndUpdate(turnEnd);
    const added = [noted?.add, addition?.actions].filter((action) => action !== undefined);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        UpdateExpression: [
          'DELETE runningTurns :entry',
          ...(added.length > 0 ? [`ADD ${added.join(', ')}`] : []),
          ...(noted?.set ? [`SET ${noted.set}`] : []),
        ].join(' '),
        // Only on a conversation that exists: a turn never creates a record of its own.
        ConditionExpression: noted?.condition ?? CONVERSATION_EXISTS,
        ...(addition ? { ExpressionAttributeNames: addition.names } : {}),
        ExpressionAttributeValues: { ':entry': new Set([entry]), ...noted?.values, ...addition?.values },
      }),
    );
  }
}
