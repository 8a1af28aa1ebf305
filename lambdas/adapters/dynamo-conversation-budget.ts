import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { ConversationBudgetStore, ConversationSpend } from '../agents/limit-checks.ts';
import type {
  ConversationBounds,
  ConversationHeld,
  ConversationReservation,
  ConversationReservations,
  OpenReservation,
} from '../agents/reservations.ts';
import { keys } from '../kernel/keys.ts';
import type { Ledger } from '../kernel/model.ts';
import { conversationFields, readConversationFields, writeAddingToLedger } from './conversation-fields.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * The conversation's budget, on its `META` item: tokens from the ledger, its start,
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

/** What the conversation spent, from its record's budget fields (`BudgetItem`). */
function spendOf({
  createdAt,
  ledger,
  continueTurns,
  streakFrom = 0,
}: z.infer<typeof BudgetItem>): ConversationSpend {
  return {
    createdAt,
    tokens: (ledger?.inputTokens ?? 0) + (ledger?.outputTokens ?? 0),
    costMicroUsd: ledger?.costMicroUsd ?? 0,
    consecutiveContinues: [...(continueTurns ?? [])].filter((turn) => turn > streakFrom).length,
  };
}

/** What the conversation spent, read from its whole record `item` (one read for several purposes). */
export function spendIn(conversationId: string, item: Record<string, unknown>): ConversationSpend {
  return spendOf(conversationFields(conversationId, item, BudgetItem));
}

export class DynamoConversationBudget extends DynamoTable implements ConversationBudgetStore {
  async spend(conversationId: string): Promise<ConversationSpend | undefined> {
    const item = await readConversationFields(
      this.doc,
      this.tableName,
      conversationId,
      'createdAt, ledger, continueTurns, streakFrom',
      BudgetItem,
    );
    return item && spendOf(item);
  }

  async recordTurnEnd(conversationId: string, turn: number, continued: boolean): Promise<void> {
    const update = turnEndUpdate({ turn, continued });
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: update.add ? `ADD ${update.add}` : `SET ${update.set}`,
          ConditionExpression: update.condition,
          ExpressionAttributeValues: update.values,
        }),
      );
    } catch (error) {
      // A later turn already reset the streak, or the conversation is gone: nothing to record.
      if (isConditionFailure(error)) return;
      throw error;
    }
  }
}

/** The condition of every update of a conversation's record by a turn: it never creates one. */
export const CONVERSATION_EXISTS = 'attribute_exists(pk)';

/** How an agent turn ended, for its conversation's streak of turns that continued. */
export interface TurnEnd {
  turn: number;
  continued: boolean;
}

/**
 * The parts of an update of the conversation's record that note how a turn ended (`BudgetItem`):
 * a turn that continued joins `continueTurns` (an `ADD` action); one that did not moves
 * `streakFrom` to it (a `SET` action) under a condition, since it never moves back: a late retry
 * of an earlier turn cannot undo a later streak. `condition` is the whole update's: it also holds
 * only on a conversation that exists. Used alone (`recordTurnEnd`) and in the update that ends
 * the turn's running-turn note (dynamo-running-turns.ts).
 */
export function turnEndUpdate(end: TurnEnd): {
  add?: string;
  set?: string;
  condition: string;
  values: Record<string, unknown>;
} {
  return end.continued
    ? {
        add: 'continueTurns :turns',
        condition: CONVERSATION_EXISTS,
        values: { ':turns': new Set([end.turn]) },
      }
    : {
        set: 'streakFrom = :turn',
        condition: `${CONVERSATION_EXISTS} AND (attribute_not_exists(streakFrom) OR streakFrom < :turn)`,
        values: { ':turn': end.turn },
      };
}

/** An open reservation, as an attribute of the conversation's record (`reservation#<id>`). */
const OpenItem = z.object({
  day: z.string(),
  microUsd: z.number(),
  tokens: z.number(),
  expiresAtMs: z.number(),
  onDay: z.boolean().optional(),
});
const RESERVATION_PREFIX = 'reservation#';

/**
 * The conversation's budget counters for reservations (agents/reservations.ts), on its `META`
 * item: `budgetTokens` and `budgetMicroUsd` hold what was settled plus what is reserved, and
 * each open reservation is an attribute of its own, written in the same update that counts
 * it, so a reservation can never be counted without being recorded (and later expired).
 */
export class DynamoConversationReservations extends DynamoTable implements ConversationReservations {
  async reserve(
    conversationId: string,
    reservation: OpenReservation,
    bounds: ConversationBounds,
  ): Promise<ConversationReservation> {
    const seed = bounds.seed ?? { tokens: 0, microUsd: 0 };
    // A counter that does not exist yet starts at the seed: it may be taken only if the seed is below the bound.
    const below = (path: string, value: string, seedValue: number, max: number) =>
      seedValue < max ? `(attribute_not_exists(${path}) OR ${path} < ${value})` : `${path} < ${value}`;
    const conditions = [
      'attribute_exists(pk)',
      below('#tokens', ':maxTokens', seed.tokens, bounds.maxTokens),
    ];
    const values: Record<string, unknown> = {
      ':maxTokens': bounds.maxTokens,
      ':tokens': reservation.tokens,
      ':micro': reservation.microUsd,
      ':seedTokens': seed.tokens,
      ':seedMicro': seed.microUsd,
      ':open': {
        day: reservation.day,
        microUsd: reservation.microUsd,
        tokens: reservation.tokens,
        expiresAtMs: reservation.expiresAtMs,
        ...(reservation.onDay === undefined ? {} : { onDay: reservation.onDay }),
      },
    };
    if (bounds.maxMicroUsd !== undefined) {
      conditions.push(below('#micro', ':maxMicro', seed.microUsd, bounds.maxMicroUsd));
      values[':maxMicro'] = bounds.maxMicroUsd;
    }
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression:
            'SET #tokens = if_not_exists(#tokens, :seedTokens) + :tokens, #micro = if_not_exists(#micro, :seedMicro) + :micro, #open = :open',
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: {
            '#tokens': 'budgetTokens',
            '#micro': 'budgetMicroUsd',
            '#open': `${RESERVATION_PREFIX}${reservation.id}`,
          },
          ExpressionAttributeValues: values,
        }),
      );
      return { granted: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { granted: false, held: await this.held(conversationId, seed) };
    }
  }

  async settle(
    conversationId: string,
    id: string,
    delta: ConversationHeld,
    ledger: Partial<Ledger> = {},
  ): Promise<boolean> {
    try {
      // Conditional on the reservation being open: a second settle (a retry, the sweep) changes nothing.
      await this.count(conversationId, delta, ledger, `${RESERVATION_PREFIX}${id}`);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async add(conversationId: string, amount: ConversationHeld, ledger: Partial<Ledger> = {}): Promise<void> {
    try {
      await this.count(conversationId, amount, ledger);
    } catch (error) {
      // The conversation is gone: nothing left to hold.
      if (isConditionFailure(error)) return;
      throw error;
    }
  }

  /**
   * Adds `amount` to the counters and `ledger` to the ledger in one update: with `open`, removing
   * that reservation and only while it is there; without, on a record that exists.
   */
  private async count(
    conversationId: string,
    amount: ConversationHeld,
    ledger: Partial<Ledger>,
    open?: string,
  ): Promise<void> {
    await writeAddingToLedger(this.doc, this.tableName, conversationId, ledger, (addition) =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: `ADD #tokens :tokens, #micro :micro${addition ? `, ${addition.actions}` : ''}${open ? ' REMOVE #open' : ''}`,
          ConditionExpression: open ? 'attribute_exists(#open)' : 'attribute_exists(pk)',
          ExpressionAttributeNames: {
            '#tokens': 'budgetTokens',
            '#micro': 'budgetMicroUsd',
            ...(open ? { '#open': open } : {}),
            ...addition?.names,
          },
          ExpressionAttributeValues: {
            ':tokens': amount.tokens,
            ':micro': amount.microUsd,
            ...addition?.values,
          },
        }),
      ),
    );
  }

  async expired(conversationId: string, nowMs: number): Promise<OpenReservation[]> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        ConsistentRead: true,
      }),
    );
    return expiredIn(Item ?? {}, nowMs);
  }

  private async held(conversationId: string, seed: ConversationHeld): Promise<ConversationHeld> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        ConsistentRead: true,
        ProjectionExpression: 'budgetTokens, budgetMicroUsd',
      }),
    );
    return {
      tokens: typeof Item?.budgetTokens === 'number' ? Item.budgetTokens : seed.tokens,
      microUsd: typeof Item?.budgetMicroUsd === 'number' ? Item.budgetMicroUsd : seed.microUsd,
    };
  }
}

/** The open reservations of the conversation record `item` past their expiry at `nowMs`. */
export function expiredIn(item: Record<string, unknown>, nowMs: number): OpenReservation[] {
  const found: OpenReservation[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith(RESERVATION_PREFIX)) continue;
    const parsed = OpenItem.safeParse(value);
    // An unreadable entry is left alone (and counted): giving back an unknown amount could undercount.
    if (parsed.success && parsed.data.expiresAtMs <= nowMs) {
      found.push({ id: name.slice(RESERVATION_PREFIX.length), ...parsed.data });
    }
  }
  return found;
}
