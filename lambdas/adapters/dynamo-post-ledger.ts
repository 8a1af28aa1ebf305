import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import { SlackPostOutput } from '../kernel/slack-post-output.ts';
import type { PostLedger } from '../slack/post-to-slack.ts';
import { DynamoTable } from './dynamo-table.ts';

/**
 * SlackPost's idempotency records beside the conversation: `POST#<key>` holds the posted
 * message once everything about it is done; `POSTTRY#<key>` notes the first attempt, so a
 * retried task knows Slack may already have the message and looks for it first.
 */
export class DynamoPostLedger extends DynamoTable implements PostLedger {
  async find(conversationId: string, idempotencyKey: string): Promise<SlackPostOutput | undefined> {
    const key = keys.post(conversationId, idempotencyKey);
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item && postRecordOf(key, Item);
  }

  async record(conversationId: string, idempotencyKey: string, output: SlackPostOutput): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.post(conversationId, idempotencyKey), ...output, ttl: this.ttl() },
      }),
    );
  }

  async attempt(
    conversationId: string,
    idempotencyKey: string,
  ): Promise<{ earlier: boolean; firstAttemptAt: string }> {
    const now = this.clock.now().toISOString();
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: keys.conversation(conversationId).pk, sk: `POSTTRY#${idempotencyKey}` },
        UpdateExpression:
          'SET firstAttemptAt = if_not_exists(firstAttemptAt, :now), #ttl = :ttl ADD attempts :one',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':now': now, ':ttl': this.ttl(), ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const attempts = Number(Attributes?.attempts ?? 1);
    return { earlier: attempts > 1, firstAttemptAt: String(Attributes?.firstAttemptAt ?? now) };
  }
}

/** The posted message an idempotency record (`POST#<key>`) holds, checked. */
export function postRecordOf(
  key: { pk: string; sk: string },
  item: Record<string, unknown>,
): SlackPostOutput {
  const parsed = SlackPostOutput.safeParse(item);
  if (!parsed.success) throw new CorruptItemError(`${key.pk}/${key.sk}`, { cause: parsed.error });
  return parsed.data;
}
