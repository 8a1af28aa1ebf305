import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoTableOptions } from '../adapters/dynamo-table.ts';
import { ENV, requireEnv } from '../shared/env.ts';

/**
 * The options of an adapter over the kernel's one table, from the function's environment: a
 * DynamoDB client (pointed at the sandbox by `AWS_ENDPOINT_URL_*` there), the table's name, and
 * how many days what it writes is kept.
 */
export function kernelTableOptions(env: NodeJS.ProcessEnv = process.env): DynamoTableOptions {
  return {
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName, env),
    retentionDays: Number(env[ENV.retentionDays] ?? 90),
  };
}
