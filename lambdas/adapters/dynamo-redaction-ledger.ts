import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConversationNotFoundError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { familyTotals, type RedactionCounts } from '../redaction/index.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/** A placeholder as the layer writes it: family, kind, and its 16-bit tag. */
const PLACEHOLDER = /^<(secret|pii):([a-z0-9-]+)#([0-9a-f]{4})>$/;
/** One bit per tag: 2^16 bits. */
const BITMAP_BYTES = 8_192;
/** Tries of a bitmap's read-and-write before a racing writer's turn is given up (and logged). */
const MAX_ATTEMPTS = 8;

/**
 * The conversation's redaction counts: each door's placeholders, tallied per invocation, are
 * added to the ledger once per value. A value is known by its placeholder (kind and tag, never
 * the value); the tags of a kind already counted are a bitmap beside the conversation (one bit
 * per possible tag, so its size is fixed whatever the conversation reads), written only if no
 * other writer changed it meanwhile. Two values of one kind whose tags collide (1 in 65,536) are
 * counted as one.
 */
export class DynamoRedactionLedger extends DynamoTable {
  /**
   * Adds the values not counted before to the ledger, by family and by kind, and returns them:
   * to `other`'s when it keeps that conversation (says true), else to the kernel record's.
   * @throws ConversationNotFoundError when the conversation has no record (no ledger to add to).
   */
  async record(
    conversationId: string,
    placeholders: Iterable<string>,
    other?: (conversationId: string, added: RedactionCounts) => Promise<boolean>,
  ): Promise<RedactionCounts> {
    const byKind = new Map<string, number[]>();
    for (const placeholder of placeholders) {
      const match = PLACEHOLDER.exec(placeholder);
      if (!match) continue;
      const kind = `${match[1]}:${match[2]}`;
      byKind.set(kind, [...(byKind.get(kind) ?? []), Number.parseInt(match[3] ?? '0', 16)]);
    }
    const added: RedactionCounts = {};
    for (const [kind, tags] of byKind) {
      const count = await this.markSeen(conversationId, kind, tags);
      if (count > 0) added[kind] = count;
    }
    if (Object.keys(added).length > 0 && (await other?.(conversationId, added)) !== true)
      await this.addToLedger(conversationId, added);
    return added;
  }

  /** Sets the tags' bits in the kind's bitmap; how many were not set before. */
  private async markSeen(conversationId: string, kind: string, tags: readonly number[]): Promise<number> {
    const key = keys.redactionsSeen(conversationId, kind);
    for (let attempt = 1; ; attempt += 1) {
      const { Item } = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
      );
      const stored = Item?.seen;
      const seen = stored instanceof Uint8Array ? Buffer.from(stored) : Buffer.alloc(BITMAP_BYTES);
      let added = 0;
      for (const tag of tags) {
        const bit = 1 << (tag & 7);
        const byte = tag >> 3;
        if (((seen[byte] ?? 0) & bit) !== 0) continue;
        seen[byte] = (seen[byte] ?? 0) | bit;
        added += 1;
      }
      if (added === 0) return 0;
      const version = typeof Item?.version === 'number' ? Item.version : 0;
      const refused = await this.writeUnless(() =>
        this.doc.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...key, seen, version: version + 1, ttl: this.ttl() },
            ...(Item === undefined
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : {
                  ConditionExpression: '#version = :version',
                  ExpressionAttributeNames: { '#version': 'version' },
                  ExpressionAttributeValues: { ':version': version },
                }),
          }),
        ),
      );
      if (refused === undefined) return added;
      if (attempt >= MAX_ATTEMPTS) throw refused;
    }
  }

  private async addToLedger(conversationId: string, added: RedactionCounts): Promise<void> {
    const kinds = Object.entries(added);
    if (kinds.length === 0) return;
    const { secret, pii } = familyTotals(added);
    const add = () =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          ConditionExpression: 'attribute_exists(pk)',
          UpdateExpression: `ADD ledger.redactedSecrets :secret, ledger.redactedPii :pii, ${kinds
            .map((_, i) => `ledger.redactedKinds.#k${i} :k${i}`)
            .join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(kinds.map(([kind], i) => [`#k${i}`, kind])),
          ExpressionAttributeValues: {
            ':secret': secret,
            ':pii': pii,
            ...Object.fromEntries(kinds.map(([, count], i) => [`:k${i}`, count])),
          },
        }),
      );
    try {
      await add().catch(async (error: unknown) => {
        // ADD on a nested path needs its maps: a conversation written without them gets them here.
        if ((error as { name?: string }).name !== 'ValidationException') throw error;
        for (const path of ['ledger', 'ledger.redactedKinds'])
          await this.doc.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: keys.conversation(conversationId),
              ConditionExpression: 'attribute_exists(pk)',
              UpdateExpression: `SET ${path} = if_not_exists(${path}, :empty)`,
              ExpressionAttributeValues: { ':empty': {} },
            }),
          );
        await add();
      });
    } catch (error) {
      if (isConditionFailure(error)) throw new ConversationNotFoundError(conversationId);
      throw error;
    }
  }
}
