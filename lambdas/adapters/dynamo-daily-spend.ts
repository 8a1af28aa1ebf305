import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { DailySpendStore } from '../agents/limits.ts';
import { CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { DynamoTable } from './dynamo-table.ts';

const DayItem = z.object({ costMicroUsd: z.number().int().nonnegative().default(0) });

/**
 * The platform's model spend per UTC day (`keys.dailySpend`): one item per day whose
 * `costMicroUsd` every model call ADDs to. ADD is atomic, so concurrent turns of many
 * conversations never lose an increment, and it creates the item on the day's first call.
 * The item expires with the table's retention, like everything else in it.
 */
export class DynamoDailySpend extends DynamoTable implements DailySpendStore {
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
}
