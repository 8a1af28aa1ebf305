import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../kernel/keys.ts';
import type { Ledger } from '../kernel/model.ts';
import { type LedgerAddition, writeAddingToLedger } from './conversation-fields.ts';
import { DynamoTable } from './dynamo-table.ts';

/**
 * The conversation record's running turns (kernel/running-turns.ts), a DynamoDB string set:
 * turns of a round that run at once add and remove their own entries without reading.
 */
export class DynamoRunningTurns extends DynamoTable {
  /** Adds the turn's entry; returns the record as this update left it (what the turn reads at its start). */
  async started(conversationId: string, entry: string): Promise<Record<string, unknown>> {
    return (await this.change(conversationId, 'ADD', entry, undefined, 'ALL_NEW')) ?? {};
  }

  /** Removes the turn's entry, adding `ledger` (the turn's time) in the same update. */
  async ended(conversationId: string, entry: string, ledger: Partial<Ledger> = {}): Promise<void> {
    await writeAddingToLedger(this.doc, this.tableName, conversationId, ledger, (addition) =>
      this.change(conversationId, 'DELETE', entry, addition),
    );
  }

  private async change(
    conversationId: string,
    op: 'ADD' | 'DELETE',
    entry: string,
    addition?: LedgerAddition,
    returnValues?: 'ALL_NEW',
  ): Promise<Record<string, unknown> | undefined> {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        UpdateExpression: [`${op} runningTurns :entry`, ...(addition ? [addition.clause] : [])].join(' '),
        // Only on a conversation that exists: a turn never creates a record of its own.
        ConditionExpression: 'attribute_exists(pk)',
        ...(addition ? { ExpressionAttributeNames: addition.names } : {}),
        ExpressionAttributeValues: { ':entry': new Set([entry]), ...addition?.values },
        ...(returnValues ? { ReturnValues: returnValues } : {}),
      }),
    );
    return Attributes;
  }
}
