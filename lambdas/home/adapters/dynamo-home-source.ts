import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { keyFormat } from '../../kernel/keys.ts';
import { Conversation, FINISHED_STATUSES } from '../../kernel/model.ts';
import type { ConversationStore } from '../../kernel/ports.ts';
import { readRecord } from '../../kernel/record-versions.ts';
import type { HomeSource } from '../ports.ts';

/** Pages of the scan one Home publication reads at most (1 MB each): its bound in time and cost. */
const MAX_SCAN_PAGES = 10;

/**
 * The App Home's reads. Which conversations are someone's is found with a filtered scan of
 * the conversation items (the table has no index by person): fine for a Home opened now and
 * then over a table whose items expire; bounded in pages, and the Home says when it stopped.
 */
export class DynamoHomeSource implements HomeSource {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    private readonly options: {
      client: DynamoDBClient;
      tableName: string;
      store: Pick<ConversationStore, 'listMessages'>;
      spentOn: (day: string) => Promise<number>;
    },
  ) {
    this.doc = DynamoDBDocumentClient.from(options.client);
  }

  async unfinished(limit: number): Promise<{ conversations: Conversation[]; truncated: boolean }> {
    const conversations: Conversation[] = [];
    const finished = [...FINISHED_STATUSES];
    let startKey: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const page = await this.doc.send(
        new ScanCommand({
          TableName: this.options.tableName,
          FilterExpression: `sk = :meta AND begins_with(pk, :prefix) AND NOT (#status IN (${finished.map((_, i) => `:f${i}`).join(', ')}))`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':meta': keyFormat.conversationSort,
            ':prefix': keyFormat.conversationPrefix,
            ...Object.fromEntries(finished.map((status, i) => [`:f${i}`, status])),
          },
          ExclusiveStartKey: startKey,
        }),
      );
      pages += 1;
      for (const item of page.Items ?? []) {
        // A conversation this release cannot read (a version it does not know, a broken item) is left off the Home.
        const parsed = Conversation.safeParse(readableOrUndefined(item));
        if (parsed.success) conversations.push(parsed.data);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && pages < MAX_SCAN_PAGES && conversations.length < limit);
    return { conversations: conversations.slice(0, limit), truncated: startKey !== undefined };
  }

  async subject(conversationId: string): Promise<string | undefined> {
    const [first] = await this.options.store.listMessages(conversationId);
    return first?.text;
  }

  spentOn(day: string): Promise<number> {
    return this.options.spentOn(day);
  }
}

function readableOrUndefined(item: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    return readRecord(item, item);
  } catch {
    return undefined;
  }
}
