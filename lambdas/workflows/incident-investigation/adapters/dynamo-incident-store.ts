import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable, isConditionFailure } from '../../../adapters/dynamo-table.ts';
import { keys } from '../../../kernel/keys.ts';
import { IncidentNotFoundError } from '../errors.ts';
import { IncidentRecord, type IncidentStore, type StoredStep } from '../record.ts';
import { HypothesisNode, type StoredEvaluation } from '../tree.ts';

const RECORD = 'INCIDENT';
const NODE = 'HYP#';

/**
 * The incident's items in the conversations table, through the kernel's key format: the
 * record at `WF#INCIDENT`, each hypothesis at `WF#HYP#<id>`. Single-item writes only (the
 * sandbox's DynamoDB has no transactions); parallel evaluations write to different nodes.
 */
export class DynamoIncidentStore extends DynamoTable implements IncidentStore {
  private recordKey(conversationId: string) {
    return keys.workflowItem(conversationId, RECORD);
  }

  async createRecord(conversationId: string, record: IncidentRecord): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...this.recordKey(conversationId), ...record, ttl: this.ttl() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async getRecord(conversationId: string): Promise<IncidentRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.recordKey(conversationId),
        ConsistentRead: true,
      }),
    );
    return out.Item ? IncidentRecord.parse(out.Item) : undefined;
  }

  async updateRecord(conversationId: string, fields: Partial<IncidentRecord>): Promise<void> {
    const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
    if (entries.length === 0) return;
    await this.update(
      conversationId,
      `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
      Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
      Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
    );
  }

  async recordRound(
    conversationId: string,
    entry: IncidentRecord['rounds'][number],
    roundsDone: number,
  ): Promise<void> {
    // Appended once per round: a retried task finds roundsDone already there and changes nothing.
    const refused = await this.writeUnless(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.recordKey(conversationId),
          UpdateExpression: 'SET #rounds = list_append(#rounds, :entry), roundsDone = :done',
          ConditionExpression: 'attribute_exists(pk) AND roundsDone < :done',
          ExpressionAttributeNames: { '#rounds': 'rounds' },
          ExpressionAttributeValues: { ':entry': [entry], ':done': roundsDone },
        }),
      ),
    );
    if (refused !== undefined && (await this.getRecord(conversationId)) === undefined)
      throw new IncidentNotFoundError(conversationId);
  }

  async updateStep(conversationId: string, step: StoredStep): Promise<void> {
    await this.update(
      conversationId,
      `SET #plan.#steps[${step.index}] = :step`,
      { '#plan': 'plan', '#steps': 'steps' },
      { ':step': step },
    );
  }

  async putNodes(conversationId: string, nodes: readonly HypothesisNode[]): Promise<void> {
    for (const node of nodes) {
      try {
        await this.doc.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...keys.workflowItem(conversationId, `${NODE}${node.id}`), ...node, ttl: this.ttl() },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  }

  async listNodes(conversationId: string): Promise<HypothesisNode[]> {
    const items = await this.queryPrefix(
      keys.workflowItem(conversationId, '').pk,
      `${keys.workflowItemPrefix}${NODE}`,
    );
    return items.map((item) => HypothesisNode.parse(item));
  }

  async setEvaluation(
    conversationId: string,
    nodeId: string,
    round: number,
    evaluation: StoredEvaluation | { round: number; failed: string; at: string },
    sessionId?: string,
  ): Promise<void> {
    const key = keys.workflowItem(conversationId, `${NODE}${nodeId}`);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `SET evaluations.#round = :evaluation${sessionId ? ', sessionId = :session' : ''}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#round': String(round) },
          ExpressionAttributeValues: {
            ':evaluation': evaluation,
            ...(sessionId ? { ':session': sessionId } : {}),
          },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error))
        throw new IncidentNotFoundError(`${conversationId} (hypothesis ${nodeId})`);
      throw error;
    }
  }

  async updateNode(
    conversationId: string,
    update: Pick<HypothesisNode, 'id' | 'status' | 'confidence' | 'level'> & {
      closedRound?: number;
      closedAt?: string;
    },
  ): Promise<void> {
    const { id, ...fields } = update;
    const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.workflowItem(conversationId, `${NODE}${id}`),
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
      }),
    );
  }

  private async update(
    conversationId: string,
    expression: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.recordKey(conversationId),
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new IncidentNotFoundError(conversationId);
      throw error;
    }
  }
}
