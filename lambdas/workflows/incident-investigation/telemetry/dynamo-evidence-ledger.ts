import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { withRecordVersions } from '../../../adapters/dynamo-record-versions.ts';
import { withRedaction } from '../../../adapters/dynamo-redaction.ts';
import { keys } from '../../../kernel/keys.ts';
import { EvidenceLedgerError } from './errors.ts';
import {
  type EvidenceDraft,
  type EvidenceLedger,
  EvidenceRecord,
  type QueryReservation,
} from './evidence.ts';

/**
 * The evidence ledger in the conversations table, beside the conversation's other items
 * (keys.ts: `EVIDENCE#<n>`, `EVIDENCE_COUNTER`, `QUERIES#<scope>`), expiring with them.
 */
export class DynamoEvidenceLedger implements EvidenceLedger {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    private readonly options: {
      client: DynamoDBClient;
      tableName: string;
      /** Days the items are kept (the table's TTL attribute `ttl`). @default 90 */
      retentionDays?: number;
      now?: () => number;
    },
  ) {
    this.doc = withRecordVersions(
      withRedaction(
        DynamoDBDocumentClient.from(options.client, {
          marshallOptions: { removeUndefinedValues: true },
        }),
      ),
    );
  }

  private get now(): number {
    return (this.options.now ?? Date.now)();
  }

  private ttl(): number {
    return Math.floor(this.now / 1000) + (this.options.retentionDays ?? 90) * 86_400;
  }

  async reserveQuery(conversationId: string, scope: string, limit: number): Promise<QueryReservation> {
    try {
      // One conditional increment: two parallel iterations cannot both take the last slot.
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: keys.queryBudget(conversationId, scope),
          UpdateExpression: 'ADD #used :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#used) OR #used < :limit',
          ExpressionAttributeNames: { '#used': 'used', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': this.ttl() },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { granted: true, used: Number(result.Attributes?.used ?? 1) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return { granted: false, used: limit };
      throw new EvidenceLedgerError(`could not count a query in scope ${scope}`, { cause: error });
    }
  }

  async record(conversationId: string, draft: EvidenceDraft): Promise<EvidenceRecord> {
    const { tableName } = this.options;
    try {
      const counted = await this.doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.evidenceCounter(conversationId),
          UpdateExpression: 'ADD #n :one SET #ttl = :ttl',
          ExpressionAttributeNames: { '#n': 'n', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':one': 1, ':ttl': this.ttl() },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const n = Number(counted.Attributes?.n);
      const record = EvidenceRecord.parse({ ...draft, id: `ev-${n}`, at: new Date(this.now).toISOString() });
      await this.doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.evidence(conversationId, n), ...record, ttl: this.ttl() },
          // The counter hands each n out once; the condition guards against a reused table.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return record;
    } catch (error) {
      throw new EvidenceLedgerError(`could not record evidence of ${draft.tool}`, { cause: error });
    }
  }

  async listEvidence(conversationId: string): Promise<EvidenceRecord[]> {
    const records: EvidenceRecord[] = [];
    let start: Record<string, unknown> | undefined;
    try {
      do {
        const page = await this.doc.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: {
              ':pk': keys.evidence(conversationId, 0).pk,
              ':prefix': keys.evidencePrefix,
            },
            ConsistentRead: true,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of page.Items ?? []) {
          const { pk: _pk, sk: _sk, ttl: _ttl, ...fields } = item;
          records.push(EvidenceRecord.parse(fields));
        }
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
    } catch (error) {
      throw new EvidenceLedgerError(`could not read the evidence of ${conversationId}`, { cause: error });
    }
    return records;
  }
}
