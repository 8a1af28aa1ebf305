import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { ConversationNotFoundError } from '../../lambdas/kernel/errors.ts';
import { keys } from '../../lambdas/kernel/keys.ts';
import { DynamoFixRequests } from '../../lambdas/workflows/bug-investigation/adapters/dynamo-fix-requests.ts';
import { startDynalite } from '../support/dynalite.ts';

/** The record of which request started a fix, against the real DynamoDB protocol (dynalite). */

const REQUEST = '1700000100.000001';

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let records: DynamoFixRequests;
let conversations = 0;

beforeAll(async () => {
  db = await startDynalite('Conversations', { inProcess: true });
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  records = new DynamoFixRequests({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db?.close());

/** A conversation as the Router creates it: no `fixRequests` yet. */
async function bug(): Promise<string> {
  conversations += 1;
  const id = `bug-investigation-C_BUGS-1700000000-00010${conversations}`;
  await store.createConversation({
    id,
    workflow: 'bug_investigation',
    status: 'pending_verification',
    phase: 'awaiting_dev',
    ownerId: 'U_REPORTER',
    participants: {},
    anchors: {},
    closeOnIntent: true,
    closeRequested: false,
    createdAt: '2015-11-21T12:00:00Z',
    updatedAt: '2015-11-21T12:00:00Z',
  });
  return id;
}

const stored = async (id: string) =>
  (
    await DynamoDBDocumentClient.from(db.client).send(
      new GetCommand({
        TableName: db.tableName,
        Key: keys.conversation(id),
        ProjectionExpression: 'fixRequests',
      }),
    )
  ).Item?.fixRequests;

describe('the requests that started a fix, on the conversation record', () => {
  it('records a request by the turn that used it, on a record that had none', async () => {
    const id = await bug();

    expect(await records.use(id, REQUEST, 3)).toBe('recorded');

    expect(await stored(id)).toEqual({ [REQUEST]: 3 });
  });

  it('records it again for the same turn (a retried check), and refuses it to a later turn', async () => {
    const id = await bug();
    await records.use(id, REQUEST, 3);

    expect(await records.use(id, REQUEST, 3)).toBe('recorded');
    expect(await records.use(id, REQUEST, 5)).toBe('used_before');
    expect(await stored(id)).toEqual({ [REQUEST]: 3 });
  });

  it('lets only one of two checks racing for the same request record it', async () => {
    const id = await bug();

    const outcomes = await Promise.all([records.use(id, REQUEST, 4), records.use(id, REQUEST, 5)]);

    expect(outcomes.toSorted()).toEqual(['recorded', 'used_before']);
  });

  it('records each request of the conversation apart', async () => {
    const id = await bug();
    await records.use(id, REQUEST, 3);

    expect(await records.use(id, '1700000200.000001', 6)).toBe('recorded');
    expect(await stored(id)).toEqual({ [REQUEST]: 3, '1700000200.000001': 6 });
  });

  it('writes nothing for a conversation that does not exist', async () => {
    await expect(records.use('bug-missing', REQUEST, 1)).rejects.toBeInstanceOf(ConversationNotFoundError);
    expect(await stored('bug-missing')).toBeUndefined();
  });
});
