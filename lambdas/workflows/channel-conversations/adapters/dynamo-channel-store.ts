import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { DynamoTable, type DynamoTableOptions, isConditionFailure } from '../../../adapters/dynamo-table.ts';
import { CorruptItemError } from '../../../kernel/errors.ts';
import type { Ledger } from '../../../kernel/model.ts';
import { BotTurn, ChannelConversation, type ChannelConversationEnd, ChannelMessage } from '../model.ts';
import type { ChannelStore } from '../ports.ts';

export type DynamoChannelStoreOptions = DynamoTableOptions;

/**
 * Channel conversations in the kernel's table, next to (never inside) the workflow
 * conversations: `CHANNEL#<channel>` holds the channel's active conversation and the bot's
 * posted messages; `CHANCONV#<id>` holds that conversation's messages, turns and answer claims.
 */
const channelKeys = {
  active: (channel: string) => ({ pk: `CHANNEL#${channel}`, sk: 'ACTIVE' }),
  botMessage: (channel: string, ts: string) => ({ pk: `CHANNEL#${channel}`, sk: `BOTMSG#${ts}` }),
  message: (id: string, ts: string) => ({ pk: `CHANCONV#${id}`, sk: `MSG#${ts}` }),
  turn: (id: string, ts: string) => ({ pk: `CHANCONV#${id}`, sk: `TURN#${ts}` }),
  answer: (id: string, ts: string) => ({ pk: `CHANCONV#${id}`, sk: `ANSWER#${ts}` }),
  ledger: (id: string) => ({ pk: `CHANCONV#${id}`, sk: 'LEDGER' }),
};

/** The ledger's counts kept as numbers of the ledger item (the values redacted by kind apart). */
const COUNTS = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'costMicroUsd',
  'lambdaMs',
  'redactedSecrets',
  'redactedPii',
] as const;
/** A redacted kind's count is the attribute `redacted:<family>:<kind>` (a top-level ADD needs no map). */
const KIND_PREFIX = 'redacted:';

export class DynamoChannelStore extends DynamoTable implements ChannelStore {
  async getConversation(channel: string): Promise<ChannelConversation | undefined> {
    const key = channelKeys.active(channel);
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item ? parse(ChannelConversation, Item, `${key.pk}/${key.sk}`) : undefined;
  }

  async startConversation(
    conversation: ChannelConversation,
    expiredBefore: string,
  ): Promise<ChannelConversation> {
    const refused = await this.writeUnless(() =>
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...channelKeys.active(conversation.channel), ...conversation, ttl: this.ttl() },
          // One active conversation per channel: replace only an expired or ended one. The same
          // id passes too, so a redelivered trigger completes its own start.
          ConditionExpression:
            'attribute_not_exists(pk) OR lastActivity < :expiredBefore OR attribute_exists(ended) OR conversationId = :id',
          ExpressionAttributeValues: { ':expiredBefore': expiredBefore, ':id': conversation.conversationId },
        }),
      ),
    );
    if (refused === undefined) return conversation;
    const winner = await this.getConversation(conversation.channel);
    if (!winner) throw refused;
    return winner;
  }

  async endConversation(channel: string, conversationId: string, end: ChannelConversationEnd): Promise<void> {
    await this.updateActive(channel, {
      UpdateExpression: 'SET ended = if_not_exists(ended, :end)',
      ConditionExpression: 'conversationId = :id',
      ExpressionAttributeValues: { ':id': conversationId, ':end': end },
    });
  }

  async recordMessage(
    conversationId: string,
    channel: string,
    message: ChannelMessage,
  ): Promise<'stored' | 'duplicate'> {
    const stored = await this.putMessageOnce(conversationId, message);
    // Bumped on a duplicate too, so a crash between the two writes is recovered on redelivery.
    // Only forward: a late, slower instance never moves last activity back.
    await this.updateActive(channel, {
      UpdateExpression: 'SET lastActivity = :at',
      ConditionExpression: 'conversationId = :id AND lastActivity < :at',
      ExpressionAttributeValues: { ':id': conversationId, ':at': message.at },
    });
    if (!message.isBot) {
      await this.updateActive(channel, {
        UpdateExpression: 'SET participants.#user = :true',
        ConditionExpression: 'conversationId = :id',
        ExpressionAttributeNames: { '#user': message.userId },
        ExpressionAttributeValues: { ':id': conversationId, ':true': true },
      });
    }
    return stored;
  }

  async recordHistory(conversationId: string, messages: readonly ChannelMessage[]): Promise<void> {
    // A redelivered start reads the same history again: each message is stored once.
    await Promise.all(messages.map((message) => this.putMessageOnce(conversationId, message)));
  }

  async listMessages(conversationId: string): Promise<ChannelMessage[]> {
    return this.query(conversationId, 'MSG#', ChannelMessage);
  }

  async claimAnswer(conversationId: string, ts: string): Promise<'claimed' | 'taken'> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...channelKeys.answer(conversationId, ts),
            claimedAt: this.clock.now().toISOString(),
            ttl: this.ttl(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'claimed';
    } catch (error) {
      if (isConditionFailure(error)) return 'taken';
      throw error;
    }
  }

  async isAnswered(conversationId: string, ts: string): Promise<boolean> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: channelKeys.answer(conversationId, ts),
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  }

  async releaseAnswer(conversationId: string, ts: string): Promise<void> {
    await this.doc.send(
      new DeleteCommand({ TableName: this.tableName, Key: channelKeys.answer(conversationId, ts) }),
    );
  }

  async recordBotTurn(conversationId: string, channel: string, turn: BotTurn): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...channelKeys.turn(conversationId, turn.ts), ...turn, ttl: this.ttl() },
      }),
    );
    await this.updateActive(channel, {
      UpdateExpression: 'SET botSpokeAt = :at',
      ConditionExpression: 'conversationId = :id',
      ExpressionAttributeValues: { ':id': conversationId, ':at': turn.at },
    });
  }

  async listBotTurns(conversationId: string): Promise<BotTurn[]> {
    return this.query(conversationId, 'TURN#', BotTurn);
  }

  async addToLedger(conversationId: string, delta: Partial<Ledger>): Promise<void> {
    const adds = [
      ...COUNTS.flatMap((field) => {
        const value = delta[field];
        return typeof value === 'number' && value !== 0 ? [[field, value] as const] : [];
      }),
      ...Object.entries(delta.redactedKinds ?? {})
        .filter(([, count]) => count !== 0)
        .map(([kind, count]) => [`${KIND_PREFIX}${kind}`, count] as const),
    ];
    if (adds.length === 0) return;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: channelKeys.ledger(conversationId),
        UpdateExpression: `ADD ${adds.map((_, i) => `#a${i} :a${i}`).join(', ')} SET #ttl = if_not_exists(#ttl, :ttl)`,
        ExpressionAttributeNames: {
          '#ttl': 'ttl',
          ...Object.fromEntries(adds.map(([name], i) => [`#a${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':ttl': this.ttl(),
          ...Object.fromEntries(adds.map(([, value], i) => [`:a${i}`, value])),
        },
      }),
    );
  }

  async getLedger(conversationId: string): Promise<Partial<Ledger>> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: channelKeys.ledger(conversationId),
        ConsistentRead: true,
      }),
    );
    if (Item === undefined) return {};
    const kinds = Object.entries(Item).filter(([name]) => name.startsWith(KIND_PREFIX));
    return {
      ...Object.fromEntries(
        COUNTS.flatMap((field) => (typeof Item[field] === 'number' ? [[field, Item[field]]] : [])),
      ),
      ...(kinds.length === 0
        ? {}
        : {
            redactedKinds: Object.fromEntries(
              kinds.map(([name, count]) => [name.slice(KIND_PREFIX.length), Number(count)]),
            ),
          }),
    };
  }

  async rememberBotMessage(channel: string, ts: string): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...channelKeys.botMessage(channel, ts), ttl: this.ttl() },
      }),
    );
  }

  async isBotMessage(channel: string, ts: string): Promise<boolean> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: channelKeys.botMessage(channel, ts) }),
    );
    return Item !== undefined;
  }

  private async putMessageOnce(
    conversationId: string,
    message: ChannelMessage,
  ): Promise<'stored' | 'duplicate'> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...channelKeys.message(conversationId, message.ts), ...message, ttl: this.ttl() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'stored';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return 'duplicate';
    }
  }

  /** A conditional update of the channel's record; a failed condition is no error (that conversation has ended, or a newer write won). */
  private async updateActive(
    channel: string,
    expression: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({ TableName: this.tableName, Key: channelKeys.active(channel), ...expression }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async query<S extends z.ZodType>(
    conversationId: string,
    prefix: string,
    schema: S,
  ): Promise<z.infer<S>[]> {
    const items = await this.queryPrefix(`CHANCONV#${conversationId}`, prefix);
    return items.map((item) => parse(schema, item, String(item.sk)));
  }
}

function parse<S extends z.ZodType>(schema: S, item: unknown, key: string): z.infer<S> {
  const parsed = schema.safeParse(item);
  if (!parsed.success) throw new CorruptItemError(key, { cause: parsed.error });
  return parsed.data;
}
