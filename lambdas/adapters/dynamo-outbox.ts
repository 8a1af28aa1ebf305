import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { SlackPostOutput } from '../kernel/slack-post-output.ts';
import { SlackPostInput } from '../kernel/tasks.ts';
import type { OutboxEntry, OutboxStore } from '../slack/outbox.ts';
import { DynamoTable } from './dynamo-table.ts';

/**
 * The outbox beside the conversation: `OUTBOX#<seq>` per kept post (its `posted` answer added
 * once out), `OUTBOXFAIL#<key>` counting a post's failed attempts, `OUTBOXRESOLVED#<ts>` from a
 * stand-in `ts` to the posted message, and one `OUTBOX` / `CONV#<id>` item per conversation
 * with kept posts, so the sweep finds them with one query.
 */
const Entry = z.object({
  conversationId: z.string(),
  seq: z.string(),
  input: SlackPostInput,
  placeholder: SlackPostOutput,
  since: z.string(),
  rendered: SlackPostInput.optional(),
  renderedPermalinkOf: z.object({ channel: z.string(), ts: z.string() }).optional(),
  posted: SlackPostOutput.optional(),
});

const INDEX_PK = 'OUTBOX';

export class DynamoOutbox extends DynamoTable implements OutboxStore {
  async countFailure(conversationId: string, key: string): Promise<{ failures: number; firstAt: string }> {
    const now = this.clock.now().toISOString();
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: keys.conversation(conversationId).pk, sk: `OUTBOXFAIL#${key}` },
        UpdateExpression: 'SET firstAt = if_not_exists(firstAt, :now), #ttl = :ttl ADD failures :one',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':now': now, ':ttl': this.ttl(), ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { failures: Number(Attributes?.failures ?? 1), firstAt: String(Attributes?.firstAt ?? now) };
  }

  async keep(entry: OutboxEntry): Promise<void> {
    const pk = keys.conversation(entry.conversationId).pk;
    await this.doc
      .send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk, sk: `OUTBOX#${entry.seq}`, ...entry, ttl: this.ttl() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((error: unknown) => {
        if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return;
        throw error;
      });
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: INDEX_PK, sk: pk, conversationId: entry.conversationId, ttl: this.ttl() },
      }),
    );
  }

  async waiting(conversationId: string): Promise<OutboxEntry[]> {
    return (await this.entries(conversationId)).filter((entry) => entry.posted === undefined);
  }

  async posted(entry: OutboxEntry, output: SlackPostOutput): Promise<void> {
    const pk = keys.conversation(entry.conversationId).pk;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk, sk: `OUTBOX#${entry.seq}` },
        UpdateExpression: 'SET posted = :posted',
        ExpressionAttributeValues: { ':posted': output },
      }),
    );
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk, sk: `OUTBOXRESOLVED#${entry.placeholder.ts}`, ...output, ttl: this.ttl() },
      }),
    );
    if ((await this.waiting(entry.conversationId)).length === 0) {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: INDEX_PK, sk: pk } }));
    }
  }

  async resolve(conversationId: string, placeholder: string): Promise<SlackPostOutput | undefined> {
    const key = { pk: keys.conversation(conversationId).pk, sk: `OUTBOXRESOLVED#${placeholder}` };
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const parsed = SlackPostOutput.safeParse(Item);
    if (!parsed.success) throw new CorruptItemError(`${key.pk}/${key.sk}`, { cause: parsed.error });
    return parsed.data;
  }

  async conversationsWaiting(): Promise<string[]> {
    const out: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': INDEX_PK },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) out.push(String(item.conversationId));
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  private async entries(conversationId: string): Promise<(OutboxEntry & { posted?: SlackPostOutput })[]> {
    const pk = keys.conversation(conversationId).pk;
    const out: (OutboxEntry & { posted?: SlackPostOutput })[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': 'OUTBOX#' },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        const parsed = Entry.safeParse(item);
        if (!parsed.success) throw new CorruptItemError(`${pk}/${String(item.sk)}`, { cause: parsed.error });
        const { posted, rendered, renderedPermalinkOf, ...entry } = parsed.data;
        out.push({
          ...entry,
          ...(rendered ? { rendered } : {}),
          ...(renderedPermalinkOf ? { renderedPermalinkOf } : {}),
          ...(posted ? { posted } : {}),
        });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }
}
