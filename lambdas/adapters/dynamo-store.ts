import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { ConversationNotFoundError, CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import {
  anchorKey,
  Conversation,
  type Ledger,
  type OpenWait,
  type SenderType,
  StoredMessage,
  ThreadAnchor,
} from '../kernel/model.ts';
import type {
  ConversationMark,
  ConversationStore,
  StoredAndConversation,
  ThreadLink,
} from '../kernel/ports.ts';
import { addToLedger, updateConversation, writeAddingToLedger } from './conversation-fields.ts';
import { DynamoTable, type DynamoTableOptions, isConditionFailure } from './dynamo-table.ts';
import { closeRequestedUpdate, stopRequestedUpdate } from './stop-requests.ts';

export type DynamoStoreOptions = DynamoTableOptions;

/**
 * The conversation kernel's records in one DynamoDB table (see kernel/keys.ts). Uses only
 * single-item operations and queries: dynalite has no TransactWriteItems, and the
 * wake protocol needs none: its ordering (write, then consistent read) does the work.
 */
export class DynamoConversationStore extends DynamoTable implements ConversationStore {
  private nowIso(): string {
    return this.clock.now().toISOString();
  }

  async getConversation(conversationId: string, options: { consistent?: boolean } = {}) {
    const key = keys.conversation(conversationId);
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: options.consistent ?? false }),
    );
    return Item ? parseItem(Conversation, Item, `${key.pk}/${key.sk}`) : undefined;
  }

  async createConversation(conversation: Conversation): Promise<'created' | 'exists'> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.conversation(conversation.id), ...conversation, ttl: this.ttl() },
          // A redelivered start finds the conversation already there and leaves it as it is.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'created';
    } catch (error) {
      if (isConditionFailure(error)) return 'exists';
      throw error;
    }
  }

  async findThread(channel: string, threadTs: string): Promise<ThreadLink | undefined> {
    const key = keys.thread(channel, threadTs);
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key }));
    if (!Item) return undefined;
    return {
      conversationId: String(Item.conversationId),
      ownerId: String(Item.ownerId),
      anchor: parseItem(ThreadAnchor, Item.anchor, `${key.pk}/${key.sk}`),
    };
  }

  async linkThread(link: ThreadLink): Promise<void> {
    const { anchor } = link;
    // The conversation learns its anchor first, then the thread points at it: a reader that
    // finds the thread can always find the anchor on the conversation.
    await this.update(link.conversationId, {
      UpdateExpression: 'SET anchors.#k = :anchor, updatedAt = :now',
      ExpressionAttributeNames: { '#k': anchorKey(anchor.channel, anchor.threadTs) },
      ExpressionAttributeValues: { ':anchor': anchor, ':now': this.nowIso() },
    });
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.thread(anchor.channel, anchor.threadTs), ...link, ttl: this.ttl() },
      }),
    );
  }

  async putMessage(message: StoredMessage): Promise<'stored' | 'duplicate'> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys.message(message.conversationId, message.ts, message.channel),
            ...message,
            ttl: this.ttl(),
          },
          // I1: a Slack retry or an SQS redelivery of the same message stores nothing new.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'stored';
    } catch (error) {
      if (isConditionFailure(error)) return 'duplicate';
      throw error;
    }
  }

  async pendingMessages(conversationId: string, options: { includeTurn?: number } = {}) {
    const includeTurn = options.includeTurn;
    return this.queryMessages(conversationId, {
      FilterExpression:
        includeTurn === undefined
          ? 'attribute_not_exists(deliveredInTurn) AND senderType <> :bot'
          : '(attribute_not_exists(deliveredInTurn) OR deliveredInTurn = :turn) AND senderType <> :bot',
      ExpressionAttributeValues:
        includeTurn === undefined ? { ':bot': 'bot' } : { ':bot': 'bot', ':turn': includeTurn },
    });
  }

  async listMessages(conversationId: string) {
    return this.queryMessages(conversationId, {});
  }

  private async queryMessages(
    conversationId: string,
    filter: Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeValues'>,
  ): Promise<StoredMessage[]> {
    const messages: StoredMessage[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :msg)',
          ...filter,
          ExpressionAttributeValues: {
            ':pk': keys.conversation(conversationId).pk,
            ':msg': keys.messagePrefix,
            ...filter.ExpressionAttributeValues,
          },
          // Strongly consistent: the wake protocol's reads must see every write before them.
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) messages.push(parseItem(StoredMessage, item, String(item.sk)));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return messages;
  }

  async markDelivered(message: StoredMessage, turn: number): Promise<'marked' | 'taken'> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.message(message.conversationId, message.ts, message.channel),
          UpdateExpression: 'SET deliveredInTurn = :turn, deliveredAt = :now',
          // Idempotent per message: a retried Drain of the same turn marks it again; another turn cannot take it.
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(deliveredInTurn) OR deliveredInTurn = :turn)',
          ExpressionAttributeValues: { ':turn': turn, ':now': this.nowIso() },
        }),
      );
      return 'marked';
    } catch (error) {
      if (isConditionFailure(error)) return 'taken';
      throw error;
    }
  }

  async requestClose(conversationId: string): Promise<void> {
    await this.update(conversationId, closeRequestedUpdate(this.nowIso()));
  }

  async requestStop(conversationId: string): Promise<void> {
    await this.update(conversationId, stopRequestedUpdate(this.nowIso()));
  }

  async addParticipant(conversationId: string, userId: string, role: SenderType): Promise<void> {
    await this.update(conversationId, {
      UpdateExpression: 'SET participants.#u = if_not_exists(participants.#u, :role)',
      ExpressionAttributeNames: { '#u': userId },
      ExpressionAttributeValues: { ':role': role },
    });
  }

  async setExecution(conversationId: string, executionName: string, executionArn: string): Promise<void> {
    await this.update(conversationId, {
      UpdateExpression: 'SET executionName = :name, executionArn = :arn, updatedAt = :now',
      ExpressionAttributeValues: { ':name': executionName, ':arn': executionArn, ':now': this.nowIso() },
    });
  }

  async openWait(
    conversationId: string,
    wait: OpenWait,
    phase: string,
    status?: string,
  ): Promise<Conversation> {
    const key = keys.conversation(conversationId);
    const written = await updateConversation(this.doc, this.tableName, conversationId, {
      UpdateExpression: `SET #wait = :wait, phase = :phase, updatedAt = :now${status === undefined ? '' : ', #status = :status'}`,
      ExpressionAttributeNames: { '#wait': 'wait', ...(status === undefined ? {} : { '#status': 'status' }) },
      ExpressionAttributeValues: {
        ':wait': wait,
        ':phase': phase,
        ':now': this.nowIso(),
        ...(status === undefined ? {} : { ':status': status }),
      },
      ReturnValues: 'ALL_NEW',
    });
    return parseItem(Conversation, written, `${key.pk}/${key.sk}`);
  }

  async readAfterStore(message: StoredMessage): Promise<StoredAndConversation> {
    const conversationKey = keys.conversation(message.conversationId);
    const messageKey = keys.message(message.conversationId, message.ts, message.channel);
    const items = await this.getItems([conversationKey, messageKey]);
    const conversation = items.get(conversationKey.sk);
    const stored = items.get(messageKey.sk);
    return {
      conversation: conversation
        ? parseItem(Conversation, conversation, `${conversationKey.pk}/${conversationKey.sk}`)
        : undefined,
      message: stored ? parseItem(StoredMessage, stored, messageKey.sk) : undefined,
    };
  }

  async withdrawMessage(message: StoredMessage): Promise<'withdrawn' | 'delivered'> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.message(message.conversationId, message.ts, message.channel),
          ConditionExpression: 'attribute_not_exists(deliveredInTurn)',
        }),
      );
      return 'withdrawn';
    } catch (error) {
      if (isConditionFailure(error)) return 'delivered';
      throw error;
    }
  }

  async endWait(
    conversationId: string,
    options: { mark?: ConversationMark; ledger?: Partial<Ledger> } = {},
  ): Promise<Conversation> {
    const { mark = {}, ledger = {} } = options;
    const set = Object.entries({ status: mark.status, phase: mark.phase }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    );
    const key = keys.conversation(conversationId);
    try {
      const { Attributes } = await writeAddingToLedger(
        this.doc,
        this.tableName,
        conversationId,
        ledger,
        (addition) =>
          this.doc.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: key,
              UpdateExpression: [
                'REMOVE #wait',
                `SET updatedAt = :now${set.map(([field]) => `, #${field} = :${field}`).join('')}`,
                ...(addition ? [addition.clause] : []),
              ].join(' '),
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: {
                '#wait': 'wait',
                ...Object.fromEntries(set.map(([field]) => [`#${field}`, field])),
                ...addition?.names,
              },
              ExpressionAttributeValues: {
                ':now': this.nowIso(),
                ...Object.fromEntries(set.map(([field, value]) => [`:${field}`, value])),
                ...addition?.values,
              },
              ReturnValues: 'ALL_NEW',
            }),
          ),
      );
      return parseItem(Conversation, Attributes, `${key.pk}/${key.sk}`);
    } catch (error) {
      if (isConditionFailure(error)) throw new ConversationNotFoundError(conversationId);
      throw error;
    }
  }

  async clearWait(conversationId: string, waitId?: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: 'REMOVE #wait SET updatedAt = :now',
          ConditionExpression:
            waitId === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND #wait.waitId = :id',
          ExpressionAttributeNames: { '#wait': 'wait' },
          ExpressionAttributeValues:
            waitId === undefined ? { ':now': this.nowIso() } : { ':now': this.nowIso(), ':id': waitId },
        }),
      );
    } catch (error) {
      // Another wait replaced it (or it is already gone): nothing of ours to clear.
      if (isConditionFailure(error) && waitId !== undefined) return;
      if (isConditionFailure(error)) throw new ConversationNotFoundError(conversationId);
      throw error;
    }
  }

  async addToLedger(conversationId: string, delta: Partial<Ledger>): Promise<void> {
    await addToLedger(this.doc, this.tableName, conversationId, delta);
  }

  private async update(
    conversationId: string,
    expression: Parameters<typeof updateConversation>[3],
  ): Promise<void> {
    await updateConversation(this.doc, this.tableName, conversationId, expression);
  }
}

function parseItem<S extends z.ZodType>(schema: S, item: unknown, key: string): z.infer<S> {
  const parsed = schema.safeParse(item);
  if (!parsed.success) throw new CorruptItemError(key, { cause: parsed.error });
  return parsed.data;
}
