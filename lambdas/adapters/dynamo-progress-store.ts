import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { CorruptItemError } from '../kernel/errors.ts';
import { keys } from '../kernel/keys.ts';
import type { ProgressRecord, ProgressStore } from '../progress/ports.ts';
import { TASK_STATUSES } from '../progress/timeline.ts';
import { DynamoTable, isConditionFailure } from './dynamo-table.ts';

const Task = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(TASK_STATUSES),
  output: z.string().optional(),
});

const StoredProgress = z.object({
  key: z.string(),
  channel: z.string(),
  threadTs: z.string(),
  ts: z.string(),
  kind: z.enum(['stream', 'message']),
  open: z.boolean(),
  tasks: z.array(Task),
  plan: z.object({ title: z.string(), steps: z.array(Task) }).optional(),
  startedAt: z.string(),
  closing: z.string().optional(),
  replacedBy: z.string().optional(),
  revision: z.number().int().nonnegative().optional(),
});

/** The conversation's live progress message (`PROGRESS`), beside its other records. */
export class DynamoProgressStore extends DynamoTable implements ProgressStore {
  async load(conversationId: string): Promise<ProgressRecord | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: progressKey(conversationId), ConsistentRead: true }),
    );
    return Item && progressRecordOf(conversationId, Item);
  }

  async save(conversationId: string, record: ProgressRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...progressKey(conversationId), ...record, ttl: this.ttl() },
      }),
    );
  }

  async saveAt(conversationId: string, record: ProgressRecord, revision: number): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...progressKey(conversationId), ...record, ttl: this.ttl() },
          // A record never saved this way has no revision: it counts as 0.
          ConditionExpression:
            revision === 0 ? 'attribute_not_exists(revision) OR revision = :r' : 'revision = :r',
          ExpressionAttributeValues: { ':r': revision },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** The key of the conversation's progress record. */
export function progressKey(conversationId: string): { pk: string; sk: string } {
  return { pk: keys.conversation(conversationId).pk, sk: 'PROGRESS' };
}

/** The progress record in `item`, checked. */
export function progressRecordOf(conversationId: string, item: Record<string, unknown>): ProgressRecord {
  const parsed = StoredProgress.safeParse(item);
  if (!parsed.success) {
    const key = progressKey(conversationId);
    throw new CorruptItemError(`${key.pk}/${key.sk}`, { cause: parsed.error });
  }
  const { plan, revision, closing, replacedBy, ...rest } = parsed.data;
  return {
    ...rest,
    ...(revision === undefined ? {} : { revision }),
    ...(closing === undefined ? {} : { closing }),
    ...(replacedBy === undefined ? {} : { replacedBy }),
    tasks: rest.tasks.map(withoutUndefined),
    ...(plan ? { plan: { title: plan.title, steps: plan.steps.map(withoutUndefined) } } : {}),
  };
}

function withoutUndefined<T extends { output?: string | undefined }>(task: T) {
  const { output, ...rest } = task;
  return output === undefined ? rest : { ...rest, output };
}
