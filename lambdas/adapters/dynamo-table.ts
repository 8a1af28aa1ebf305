import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConversationNotFoundError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { type Clock, systemClock } from '../kernel/ports.ts';
import { withRecordVersions } from './dynamo-record-versions.ts';
import { withRedaction } from './dynamo-redaction.ts';

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
 * Takes the SDK's logger middleware off a client whose logger drops everything (the SDK's
 * default, `NoOpLogger`): the middleware copies every command's input and output, sensitive
 * members masked, to hand the copies to that logger, a few percent of the CPU of each call. A
 * client given a logger of its own keeps it. The document client shares the middleware of the
 * client it wraps, so this is the client's too.
 */
function withoutIdleLogging(doc: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const logger: unknown = doc.config.logger;
  const idle = logger === undefined || (logger as object).constructor?.name === 'NoOpLogger';
  if (idle) doc.middlewareStack.remove('loggerMiddleware');
  return doc;
}

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
    // Every write of every adapter over the table passes the redaction layer (dynamo-redaction.ts),
    // and every record says its schema version (dynamo-record-versions.ts).
    this.doc = withRecordVersions(
      withRedaction(
        withoutIdleLogging(
          DynamoDBDocumentClient.from(options.client, {
            marshallOptions: { removeUndefinedValues: true },
          }),
        ),
      ),
    );
    this.tableName = options.tableName;
    this.retentionSeconds = (options.retentionDays ?? 90) * 86_400;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Runs a conditional write: undefined when it was written, the refusal when its condition did
   * not hold (ConditionalCheckFailedException, for the caller to decide what that means); any
   * other failure is thrown.
   */
  protected async writeUnless(
    write: () => Promise<unknown>,
  ): Promise<ConditionalCheckFailedException | undefined> {
    try {
      await write();
      return undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return error;
      throw error;
    }
  }

  /**
   * Gives the conversation's record an empty map `attribute` when it has none, so that one of its
   * keys can then be set: DynamoDB sets no key of a map that is missing, and two paths that
   * overlap cannot share an update. Throws ConversationNotFoundError when there is no record.
   */
  protected async ensureConversationMap(conversationId: string, attribute: string): Promise<void> {
    const refused = await this.writeUnless(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: 'SET #map = if_not_exists(#map, :empty)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#map': attribute },
          ExpressionAttributeValues: { ':empty': {} },
        }),
      ),
    );
    if (refused !== undefined) throw new ConversationNotFoundError(conversationId);
  }

  /**
   * The items of `itemKeys` that exist, read consistently in one BatchGetItem request (asked
   * again for any keys DynamoDB leaves unprocessed under load), by their sort key.
   */
  protected async getItems(
    itemKeys: readonly { pk: string; sk: string }[],
  ): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead: boolean }> | undefined = {
      [this.tableName]: { Keys: [...itemKeys], ConsistentRead: true },
    };
    while (request !== undefined && Object.keys(request).length > 0) {
      const page: BatchGetCommandOutput = await this.doc.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of page.Responses?.[this.tableName] ?? []) found.set(String(item.sk), item);
      request = page.UnprocessedKeys as typeof request;
    }
    return found;
  }

  /**
   * Every item of partition `pk` whose sort key begins with `prefix`, read consistently (what
   * the caller just wrote is there), page after page.
   */
  protected async queryPrefix(pk: string, prefix: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  /** Epoch seconds at which an item written now expires. */
  protected ttl(): number {
    return Math.floor(this.clock.now().getTime() / 1000) + this.retentionSeconds;
  }
}
