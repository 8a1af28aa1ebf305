import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod';
import { ConversationNotFoundError, CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import type { Ledger } from '../kernel/model.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * Parts of the conversation record, read and written without the whole: a projection checked
 * by its own schema, an update, the ledger's counts. What reads or writes a few fields (a turn's
 * stop check, its budget, a task's time) builds none of the whole record's schemas.
 */

/**
 * The fields `projection` names of the conversation record, read consistently and checked by
 * `schema`; undefined when there is no record.
 */
export async function readConversationFields<S extends z.ZodType>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  conversationId: string,
  projection: string,
  schema: S,
): Promise<z.infer<S> | undefined> {
  const { Item } = await doc.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.conversation(conversationId),
      ConsistentRead: true,
      ProjectionExpression: projection,
    }),
  );
  return Item ? conversationFields(conversationId, Item, schema) : undefined;
}

/** The fields `schema` reads of the conversation record's `item` (the rest is ignored). */
export function conversationFields<S extends z.ZodType>(
  conversationId: string,
  item: Record<string, unknown>,
  schema: S,
): z.infer<S> {
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    const key = keys.conversation(conversationId);
    throw new CorruptItemError(`${key.pk}/${key.sk}`, { cause: parsed.error });
  }
  return parsed.data;
}

/**
 * One update of an existing conversation record: a missing record is ConversationNotFoundError.
 * With `ReturnValues: 'ALL_NEW'`, returns the record as the update left it.
 */
export async function updateConversation(
  doc: DynamoDBDocumentClient,
  tableName: string,
  conversationId: string,
  expression: {
    UpdateExpression: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
    ReturnValues?: 'ALL_NEW';
  },
): Promise<Record<string, unknown> | undefined> {
  try {
    const { Attributes } = await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.conversation(conversationId),
        ConditionExpression: 'attribute_exists(pk)',
        ...expression,
      }),
    );
    return Attributes;
  } catch (error) {
    if (isConditionFailure(error)) throw new ConversationNotFoundError(conversationId);
    throw error;
  }
}

/** The `ADD` clause of an update that adds a ledger delta's non-zero counts, with its names and values. */
export interface LedgerAddition {
  clause: string;
  /** The clause's actions without its `ADD`, to join an `ADD` clause of the write's own. */
  actions: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** The addition of `delta`'s non-zero counts to the record's ledger; undefined when there are none. */
function ledgerAddition(delta: Partial<Ledger>): LedgerAddition | undefined {
  const entries = Object.entries(delta).filter(([, value]) => typeof value === 'number' && value !== 0);
  if (entries.length === 0) return undefined;
  const actions = entries.map((_, i) => `ledger.#l${i} :l${i}`).join(', ');
  return {
    clause: `ADD ${actions}`,
    actions,
    names: Object.fromEntries(entries.map(([field], i) => [`#l${i}`, field])),
    values: Object.fromEntries(entries.map(([, value], i) => [`:l${i}`, value])),
  };
}

const isValidationError = (error: unknown) => (error as { name?: string }).name === 'ValidationException';

/**
 * A write of the conversation record that also adds `delta` to its ledger, in the same update:
 * `write` is given the `ADD` clause to put in its expression (undefined when `delta` counts
 * nothing). `ADD` on a nested path needs the `ledger` map, which every record the Router creates
 * has; on a record written without it, the write goes again without the clause, and the map is
 * made and the counts added after it.
 */
export async function writeAddingToLedger<T>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  conversationId: string,
  delta: Partial<Ledger>,
  write: (addition: LedgerAddition | undefined) => Promise<T>,
): Promise<T> {
  const addition = ledgerAddition(delta);
  if (addition === undefined) return write(undefined);
  try {
    return await write(addition);
  } catch (error) {
    if (!isValidationError(error)) throw error;
    const result = await write(undefined);
    await addToLedger(doc, tableName, conversationId, delta);
    return result;
  }
}

/**
 * Adds `delta`'s non-zero counts to the conversation record's ledger, in one update without a
 * read (`ADD`, so turns of a round that run at once each add their own). Shared by the
 * conversation store and the agent turn's own view of its record (dynamo-turn-conversation.ts).
 */
export async function addToLedger(
  doc: DynamoDBDocumentClient,
  tableName: string,
  conversationId: string,
  delta: Partial<Ledger>,
): Promise<void> {
  const addition = ledgerAddition(delta);
  if (addition === undefined) return;
  const update = (expression: Parameters<typeof updateConversation>[3]) =>
    updateConversation(doc, tableName, conversationId, expression);
  const add = () =>
    update({
      UpdateExpression: addition.clause,
      ExpressionAttributeNames: addition.names,
      ExpressionAttributeValues: addition.values,
    });
  try {
    await add();
  } catch (error) {
    // A conversation written without a `ledger` map gets it here.
    if (!isValidationError(error)) throw error;
    await update({
      UpdateExpression: 'SET ledger = if_not_exists(ledger, :empty)',
      ExpressionAttributeValues: { ':empty': {} },
    });
    await add();
  }
}

/**
 * The conversation record's ledger alone, for what adds to it and reads nothing of the record
 * (a task's time, task-handler.ts): no schema of the record is built to count.
 */
export class DynamoConversationLedger extends DynamoTable {
  async addToLedger(conversationId: string, delta: Partial<Ledger>): Promise<void> {
    await addToLedger(this.doc, this.tableName, conversationId, delta);
  }
}
