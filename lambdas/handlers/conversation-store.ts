import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoConversationStore } from '../adapters/dynamo-store.ts';
import { systemClock } from '../kernel/ports.ts';
import { ENV, requireEnv } from '../shared/env.ts';

let store: DynamoConversationStore | undefined;

/**
 * The conversation store alone, built once per Lambda instance on first use: for a function
 * that reads conversations but starts no executions (the AgentTurn), so its bundle carries no
 * Step Functions client. `kernelDeps()` (wiring.ts) hands out this same instance.
 */
export function conversationStore(): DynamoConversationStore {
  store ??= new DynamoConversationStore({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
    retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
    clock: systemClock,
  });
  return store;
}
