import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { DynamoTable, isConditionFailure } from '../../../adapters/dynamo-table.ts';
import { BuildResults } from '../../../builds/contract.ts';
import { keys } from '../../../kernel/keys.ts';
import { BaselineRecord } from '../contract.ts';
import { DocumentNotFoundError, InvalidDocumentError } from '../errors.ts';
import type { IssueStateStore, ProgressAnchors } from '../ports.ts';
import { IssueState } from '../state.ts';

/**
 * The pipeline's document on the conversation's record (`issueState`, beside the kernel's
 * fields, so the console shows it with the conversation), where its progress message and
 * comment are (`issueProgress`), and the base commits' build results (`buildBaseline` items).
 * Every write validates the whole document first: a hand-off cannot store a broken one.
 */
export class DynamoIssueStateStore extends DynamoTable implements IssueStateStore {
  async load(conversationId: string): Promise<IssueState> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        ConsistentRead: true,
        ProjectionExpression: 'issueState',
      }),
    );
    if (Item?.issueState === undefined) throw new DocumentNotFoundError(conversationId);
    const parsed = IssueState.safeParse(Item.issueState);
    if (!parsed.success) throw new InvalidDocumentError(conversationId, z.prettifyError(parsed.error));
    return parsed.data;
  }

  async save(conversationId: string, state: IssueState): Promise<void> {
    const checked = IssueState.safeParse(state);
    if (!checked.success) throw new InvalidDocumentError(conversationId, z.prettifyError(checked.error));
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.conversation(conversationId),
          UpdateExpression: 'SET issueState = :state, updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':state': checked.data, ':now': this.clock.now().toISOString() },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new DocumentNotFoundError(conversationId, { cause: error });
      throw error;
    }
  }

  async progress(conversationId: string): Promise<ProgressAnchors> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        ConsistentRead: true,
        ProjectionExpression: 'issueProgress',
      }),
    );
    return ProgressAnchorsSchema.parse(Item?.issueProgress ?? {});
  }

  async setProgress(conversationId: string, anchors: ProgressAnchors): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        UpdateExpression: 'SET issueProgress = :p',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':p': anchors },
      }),
    );
  }

  async keepBranchResults(conversationId: string, results: BuildResults): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        UpdateExpression: 'SET issueBranchBuild = :r',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':r': results },
      }),
    );
  }

  async branchResults(conversationId: string): Promise<BuildResults | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.conversation(conversationId),
        ConsistentRead: true,
        ProjectionExpression: 'issueBranchBuild',
      }),
    );
    const parsed = BuildResults.safeParse(Item?.issueBranchBuild);
    return parsed.success ? parsed.data : undefined;
  }

  async baseline(repository: string, sha: string): Promise<BaselineRecord | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.buildBaseline(repository, sha) }),
    );
    if (Item === undefined) return undefined;
    const parsed = BaselineRecord.safeParse(Item);
    return parsed.success ? parsed.data : undefined;
  }

  async saveBaseline(repository: string, record: BaselineRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.buildBaseline(repository, record.sha), ...record, ttl: this.ttl() },
      }),
    );
  }
}

const ProgressAnchorsSchema = z.object({
  slack: z.object({ channel: z.string(), ts: z.string() }).optional(),
  commentId: z.number().int().optional(),
});
