import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { MessageParam, TranscriptStore } from '../agents/ports.ts';
import { CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import type { Clock } from '../kernel/ports.ts';
import { Redactor, redactionSettings } from '../redaction/index.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

/**
 * Agent transcripts in the conversations table, one turn per item group:
 *
 *     pk CONV#<conversation>   sk TRANSCRIPT#<session>#<turn, 6 digits>#<chunk, 4 digits>
 *
 * A turn's new messages are stored as gzipped JSON, split into chunks well below DynamoDB's
 * 400 KB item limit. Every chunk of one save carries the save's `writeId`, and chunk 0 (which
 * names the chunk count) is written last: a load uses a turn only when chunk 0 and all the
 * chunks of its write are there, so a save that died halfway, or a retried turn that wrote
 * fewer chunks than before, never mixes two writes.
 */

/** Bytes of compressed transcript per item, leaving room for the keys and attributes. */
const TRANSCRIPT_CHUNK_BYTES = 300_000;

const PREFIX = 'TRANSCRIPT#';
const pad = (value: number, digits: number) => String(value).padStart(digits, '0');
const sessionPrefix = (sessionId: string) => `${PREFIX}${sessionId}#`;

const ChunkItem = z.object({
  sk: z.string(),
  turn: z.number().int(),
  chunk: z.number().int().nonnegative(),
  chunks: z.number().int().positive(),
  writeId: z.string(),
  data: z.instanceof(Uint8Array),
});
type ChunkItem = z.infer<typeof ChunkItem>;

const StoredMessages = z.array(
  z.object({
    role: z.enum(['user', 'assistant']),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
  }),
);

export interface DynamoTranscriptStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Items expire this many days after they are written (the table's TTL attribute). @default 90 */
  retentionDays?: number;
  clock?: Clock;
  /** Told about a stored turn that cannot be used (it is skipped; the history tool still has the messages). */
  onSkippedTurn?: (details: {
    conversationId: string;
    sessionId: string;
    turn: number;
    reason: string;
  }) => void;
}

export class DynamoTranscriptStore extends DynamoTable implements TranscriptStore {
  private readonly onSkippedTurn: NonNullable<DynamoTranscriptStoreOptions['onSkippedTurn']>;
  private readonly redaction = redactionSettings();

  constructor(options: DynamoTranscriptStoreOptions) {
    super(options);
    this.onSkippedTurn = options.onSkippedTurn ?? (() => {});
  }

  /**
   * Saves the turn's messages, then names the session on the conversation's record, unless
   * `sessionNamed` says the record names it already (as the turn's start read it).
   */
  async save(
    conversationId: string,
    sessionId: string,
    turn: number,
    messages: MessageParam[],
    options: { sessionNamed?: boolean } = {},
  ): Promise<void> {
    // Compressed bytes are out of the document client's redaction (dynamo-redaction.ts): the
    // messages pass the layer here, before gzip, keyed by the conversation like the turn's own.
    const { value: redacted } = await new Redactor(conversationId, this.redaction).redactValue(messages);
    const data = gzipSync(JSON.stringify(redacted));
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < data.length || chunks.length === 0; offset += TRANSCRIPT_CHUNK_BYTES) {
      chunks.push(data.subarray(offset, offset + TRANSCRIPT_CHUNK_BYTES));
    }
    const writeId = randomUUID();
    const ttl = this.ttl();
    const { pk } = keys.conversation(conversationId);
    // Chunk 0 last: it is what makes this write visible to `load`.
    for (let index = chunks.length - 1; index >= 0; index--) {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk,
            sk: `${sessionPrefix(sessionId)}${pad(turn, 6)}#${pad(index, 4)}`,
            sessionId,
            turn,
            chunk: index,
            chunks: chunks.length,
            writeId,
            data: new Uint8Array(chunks[index] as Buffer),
            savedAt: this.clock.now().toISOString(),
            ttl,
          },
        }),
      );
    }
    if (!options.sessionNamed) await this.recordSession(conversationId, sessionId);
  }

  async load(
    conversationId: string,
    sessionId: string,
    options: { beforeTurn?: number } = {},
  ): Promise<MessageParam[]> {
    const byTurn = new Map<number, ChunkItem[]>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': keys.conversation(conversationId).pk,
            ':prefix': sessionPrefix(sessionId),
          },
          // Strongly consistent: the next turn may start a moment after this one saved.
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const raw of page.Items ?? []) {
        const parsed = ChunkItem.safeParse(raw);
        if (!parsed.success) throw new CorruptItemError(String(raw.sk), { cause: parsed.error });
        const item = parsed.data;
        if (options.beforeTurn !== undefined && item.turn >= options.beforeTurn) continue;
        byTurn.set(item.turn, [...(byTurn.get(item.turn) ?? []), item]);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);

    const messages: MessageParam[] = [];
    for (const turn of [...byTurn.keys()].sort((a, b) => a - b)) {
      const items = byTurn.get(turn) ?? [];
      const head = items.find((item) => item.chunk === 0);
      const parts = head ? items.filter((item) => item.writeId === head.writeId) : [];
      if (!head || parts.length !== head.chunks) {
        this.onSkippedTurn({ conversationId, sessionId, turn, reason: 'incomplete write' });
        continue;
      }
      parts.sort((a, b) => a.chunk - b.chunk);
      messages.push(...decode(head.sk, parts));
    }
    return messages;
  }

  /** The conversation item names its agent session; absent conversations are left alone. */
  private async recordSession(conversationId: string, sessionId: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: 'SET sessionId = :session',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':session': sessionId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

function decode(key: string, parts: readonly ChunkItem[]): MessageParam[] {
  let value: unknown;
  try {
    value = JSON.parse(gunzipSync(Buffer.concat(parts.map((part) => part.data))).toString('utf8'));
  } catch (cause) {
    throw new CorruptItemError(key, { cause });
  }
  const stored = StoredMessages.safeParse(value);
  if (!stored.success) throw new CorruptItemError(key, { cause: stored.error });
  return stored.data as MessageParam[];
}
