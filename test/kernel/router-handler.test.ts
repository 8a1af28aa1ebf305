import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { handler } from '../../lambdas/handlers/router.ts';
import { reporterReply, seedBugConversation } from '../support/conversations.ts';
import { handlerEnvironment, startDynalite } from '../support/dynalite.ts';
import { fifoRecord } from '../support/sqs-record.ts';

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  Object.assign(process.env, handlerEnvironment(db), {
    WORKFLOWS: '[]',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  for (const id of ['conv-a', 'conv-b']) await seedBugConversation(store, id);
});
afterAll(async () => db.close());

const reply = reporterReply;

const context = {
  functionName: 'Router',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 30_000,
} as Context;

describe('Router handler', () => {
  it('fails a record it cannot route and the rest of its group, in order, while other groups go on', async () => {
    // conv-a's thread points at a conversation item that does not exist: routing fails.
    await db.client.send(
      new PutItemCommand({
        TableName: db.tableName,
        Item: { pk: { S: 'THREAD#C_BUGS#conv-a-root' }, sk: { S: 'THREAD' }, conversationId: { S: 'gone' } },
      }),
    );
    const event: SQSEvent = {
      Records: [
        fifoRecord('a1', 'C_BUGS:conv-a-root', reply('conv-a', '1700000001.000000')),
        fifoRecord('a2', 'C_BUGS:conv-a-root', reply('conv-a', '1700000001.000001')),
        fifoRecord('b1', 'C_BUGS:conv-b-root', reply('conv-b', '1700000001.000002')),
      ],
    };

    const response = await handler(event, context);

    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a1', 'a2']);
    expect((await store.listMessages('conv-a')).map((m) => m.ts)).toEqual([]);
    expect((await store.listMessages('conv-b')).map((m) => m.ts)).toEqual(['1700000001.000002']);
  });

  it('stores a redelivered record once', async () => {
    const body = reply('conv-b', '1700000002.000001');

    await handler({ Records: [fifoRecord('r1', 'C_BUGS:conv-b-root', body)] }, context);
    const again = await handler({ Records: [fifoRecord('r1-again', 'C_BUGS:conv-b-root', body)] }, context);

    expect(again.batchItemFailures).toEqual([]);
    expect((await store.listMessages('conv-b')).filter((m) => m.ts === '1700000002.000001')).toHaveLength(1);
  });
});
