import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../kernel/ports.ts';

export interface DynamoTableOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Items expire this many days after they are written (the table's TTL attribute). @default 90 */
  retentionDays?: number;
  clock?: Clock;
}

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException;

/**
 * What every adapter over the kernel's one table shares: the document client (undefined
 * attributes dropped), the table name, the clock, and the expiry (`ttl`) of what it writes.
 */
export abstract class DynamoTable {
  protected readonly doc: DynamoDBDocumentClient;
  protected readonly tableName: string;
  protected readonly clock: Clock;
  private readonly retentionSeconds: number;

  constructor(options: DynamoTableOptions) {
    this.doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.tableName = options.tableName;
    this.retentionSeconds = (options.retentionDays ?? 90) * 86_400;
    this.clock = options.clock ?? systemClock;
  }

  /** Epoch seconds at which an item written now expires. */
  protected ttl(): number {
    return Math.floor(this.clock.now().getTime() / 1000) + this.retentionSeconds;
  }
}
