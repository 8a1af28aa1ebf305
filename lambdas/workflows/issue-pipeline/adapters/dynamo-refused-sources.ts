import { BatchGetCommand, type BatchGetCommandOutput, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable } from '../../../adapters/dynamo-table.ts';
import { keys } from '../../../kernel/keys.ts';
import type { RefusedSources } from '../answers.ts';

/** BatchGetItem reads at most 100 keys per call. */
const BATCH_KEYS = 100;

/**
 * The GitHub comments whose author the pipeline refused, one item per repository and comment
 * (`REFUSED#<repository>` / `SOURCE#github-comment:<id>`). They never expire: a comment can be
 * edited for as long as it exists, and an edit must find the refusal.
 */
export class DynamoRefusedSources extends DynamoTable implements RefusedSources {
  async refusedBefore(repository: string, sourceIds: readonly string[]): Promise<ReadonlySet<string>> {
    const found = new Set<string>();
    const unique = [...new Set(sourceIds)];
    for (let i = 0; i < unique.length; i += BATCH_KEYS) {
      let pending: Record<string, unknown>[] | undefined = unique
        .slice(i, i + BATCH_KEYS)
        .map((id) => keys.refusedSource(repository, id));
      while (pending !== undefined && pending.length > 0) {
        const result: BatchGetCommandOutput = await this.doc.send(
          new BatchGetCommand({
            RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        for (const item of result.Responses?.[this.tableName] ?? []) {
          if (typeof item.sourceId === 'string') found.add(item.sourceId);
        }
        pending = result.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return found;
  }

  async record(repository: string, sourceIds: readonly string[]): Promise<void> {
    const at = this.clock.now().toISOString();
    await Promise.all(
      [...new Set(sourceIds)].map((sourceId) =>
        this.doc.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...keys.refusedSource(repository, sourceId), repository, sourceId, refusedAt: at },
          }),
        ),
      ),
    );
  }
}
