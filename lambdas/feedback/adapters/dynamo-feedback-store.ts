import { PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable, isConditionFailure } from '../../adapters/dynamo-table.ts';
import { FeedbackRecord } from '../model.ts';
import type { FeedbackStore } from '../ports.ts';
import type { FeedbackTarget } from '../reason-form.ts';

const PREFIX = 'FEEDBACK#';

/**
 * Feedback in the conversations table: one item per person and answer, under the
 * conversation's own feedback partition (`FEEDBACK#<conversation id>`), apart from the
 * kernel's `CONV#` items so nothing that reads those meets it.
 */
export const feedbackKey = (
  target: Pick<FeedbackTarget, 'conversationId' | 'channel' | 'messageTs'>,
  by: string,
) => ({
  pk: `${PREFIX}${target.conversationId}`,
  sk: `${target.messageTs}#${target.channel}#${by}`,
});

export class DynamoFeedbackStore extends DynamoTable implements FeedbackStore {
  async put(record: FeedbackRecord): Promise<'stored' | 'replaced' | 'stale'> {
    const parsed = FeedbackRecord.parse(record);
    try {
      const { Attributes } = await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...feedbackKey(parsed, parsed.by), ...parsed, ttl: this.ttl() },
          // A later press replaces an earlier one; a redelivered older press changes nothing.
          ConditionExpression: 'attribute_not_exists(pk) OR pressTs <= :pressTs',
          ExpressionAttributeValues: { ':pressTs': parsed.pressTs },
          ReturnValues: 'ALL_OLD',
        }),
      );
      if (Attributes === undefined || Attributes.pressTs === parsed.pressTs) return 'stored';
      return 'replaced';
    } catch (error) {
      if (isConditionFailure(error)) return 'stale';
      throw error;
    }
  }

  async setReason(target: FeedbackTarget, by: string, reason: string): Promise<'stored' | 'not_found'> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: feedbackKey(target, by),
          UpdateExpression: 'SET reason = :reason, reasonAt = :at',
          // Only the presser's own thumbs down takes a reason.
          ConditionExpression: 'attribute_exists(pk) AND vote = :down',
          ExpressionAttributeValues: {
            ':reason': reason,
            ':at': this.clock.now().toISOString(),
            ':down': 'down',
          },
        }),
      );
      return 'stored';
    } catch (error) {
      if (isConditionFailure(error)) return 'not_found';
      throw error;
    }
  }

  async list(conversationId: string): Promise<FeedbackRecord[]> {
    const records: FeedbackRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `${PREFIX}${conversationId}` },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) records.push(FeedbackRecord.parse(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return records;
  }

  /** A scan with a filter: the export runs now and then, over a table that expires its items. */
  async *scan(since?: string): AsyncIterable<FeedbackRecord> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: `begins_with(pk, :prefix)${since === undefined ? '' : ' AND #at >= :since'}`,
          ...(since === undefined ? {} : { ExpressionAttributeNames: { '#at': 'at' } }),
          ExpressionAttributeValues: {
            ':prefix': PREFIX,
            ...(since === undefined ? {} : { ':since': since }),
          },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) yield FeedbackRecord.parse(item);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}
