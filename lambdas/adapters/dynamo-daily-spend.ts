import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { DailySpendStore } from '../agents/limit-checks.ts';
import type { DailyReservations } from '../agents/reservations.ts';
import { CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

const DayItem = z.object({ costMicroUsd: z.number().int().nonnegative().default(0) });

/**
 * The platform's model spend per UTC day (`keys.dailySpend`): one item per day whose
 * `costMicroUsd` every model call ADDs to. ADD is atomic, so concurrent turns of many
 * conversations never lose an increment, and it creates the item on the day's first call.
 * The item expires with the table's retention, like everything else in it.
 *
 * Reservations (agents/reservations.ts) use the same counter: a model call's worst case is
 * added before the call, on the condition that the counter is below the ceiling, and the
 * difference to the real cost is added (negative) after it. The counter is therefore what was
 * spent plus what is being spent, and a reservation that is never settled (an invocation that
 * died mid-call) holds only until the day ends: the next day is a new item.
 */
export class DynamoDailySpend extends DynamoTable implements DailySpendStore, DailyReservations {
  async spentOn(day: string): Promise<number> {
    const key = keys.dailySpend(day);
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    if (!Item) return 0;
    const parsed = DayItem.safeParse(Item);
    if (!parsed.success) throw new CorruptItemError(`${key.pk}/${key.sk}`, { cause: parsed.error });
    return parsed.data.costMicroUsd;
  }

  async add(day: string, costMicroUsd: number): Promise<void> {
    if (costMicroUsd <= 0) return;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.dailySpend(day),
        UpdateExpression: 'ADD costMicroUsd :cost SET #day = :day, #ttl = if_not_exists(#ttl, :ttl)',
        ExpressionAttributeNames: { '#day': 'day', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':cost': costMicroUsd, ':day': day, ':ttl': this.ttl() },
      }),
    );
  }

  async reserve(day: string, microUsd: number, ceilingMicroUsd: number | undefined): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.dailySpend(day),
          // Compared before the add: only the call that crosses the ceiling can carry it past.
          UpdateExpression: 'ADD costMicroUsd :cost SET #day = :day, #ttl = if_not_exists(#ttl, :ttl)',
          ...(ceilingMicroUsd === undefined
            ? {}
            : { ConditionExpression: 'attribute_not_exists(costMicroUsd) OR costMicroUsd < :ceiling' }),
          ExpressionAttributeNames: { '#day': 'day', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':cost': microUsd,
            ':day': day,
            ':ttl': this.ttl(),
            ...(ceilingMicroUsd === undefined ? {} : { ':ceiling': ceilingMicroUsd }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async adjust(day: string, deltaMicroUsd: number): Promise<void> {
    if (deltaMicroUsd === 0) return;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.dailySpend(day),
        UpdateExpression: 'ADD costMicroUsd :delta SET #day = :day, #ttl = if_not_exists(#ttl, :ttl)',
        ExpressionAttributeNames: { '#day': 'day', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':delta': deltaMicroUsd, ':day': day, ':ttl': this.ttl() },
      }),
    );
  }
}
