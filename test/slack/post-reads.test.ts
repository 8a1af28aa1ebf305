import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPostLedger } from '../../lambdas/adapters/dynamo-post-ledger.ts';
import { DynamoPostReads } from '../../lambdas/adapters/dynamo-post-reads.ts';
import { DynamoProgressStore } from '../../lambdas/adapters/dynamo-progress-store.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { keys } from '../../lambdas/kernel/keys.ts';
import type { ProgressRecord } from '../../lambdas/progress/ports.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * SlackPost's reads before it posts: the conversation's record, the post's idempotency record and
 * the live progress record, in one BatchGetItem request, each checked as its own adapter checks it.
 */

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let reads: DynamoPostReads;
let n = 0;

const TIMELINE: ProgressRecord = {
  key: 'progress:1',
  channel: 'C_REPORTS',
  threadTs: '1700000000.000100',
  ts: '1700000000.000200',
  kind: 'message',
  open: true,
  tasks: [{ id: 't1', title: 'Reading the report', status: 'in_progress' }],
  startedAt: '2015-11-21T12:00:00.000Z',
};

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  reads = new DynamoPostReads({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db.close());

async function conversation(): Promise<string> {
  n += 1;
  const id = `post-reads-${n}`;
  await store.createConversation(bugConversation(id));
  return id;
}

/** The operations `work` sends to dynalite, in order. */
async function requestsOf(work: () => Promise<unknown>): Promise<{ operation: string; body: unknown }[]> {
  const seen: { operation: string; body: unknown }[] = [];
  const stop = db.observe((operation, body) => seen.push({ operation, body }));
  await work().finally(stop);
  return seen;
}

describe("SlackPost's reads", () => {
  it('reads the conversation, the recorded post and the timeline in one request', async () => {
    const id = await conversation();
    const posted = { channel: 'C_REPORTS', ts: '1700000000.000300', threadTs: '1700000000.000100' };
    await new DynamoPostLedger({ client: db.client, tableName: db.tableName }).record(
      id,
      'findings:1',
      posted,
    );
    await new DynamoProgressStore({ client: db.client, tableName: db.tableName }).save(id, TIMELINE);

    let read: Awaited<ReturnType<DynamoPostReads['read']>> | undefined;
    const requests = await requestsOf(async () => {
      read = await reads.read(id, { idempotencyKey: 'findings:1', progress: true });
    });

    expect(requests.map((request) => request.operation)).toEqual(['BatchGetItem']);
    expect(read?.conversation).toMatchObject({ id, ownerId: bugConversation(id).ownerId });
    expect(read?.recorded).toEqual(posted);
    expect(read?.progress).toEqual({ record: TIMELINE });
  });

  it('says what is not there, and asks only for the items it was asked for', async () => {
    const id = await conversation();

    const withKey = await reads.read(id, { idempotencyKey: 'answer:2', progress: true });
    expect(withKey).toMatchObject({ recorded: undefined, progress: { record: undefined } });
    expect(withKey.conversation?.id).toBe(id);
    expect(await reads.read('post-reads-none', { progress: false })).toEqual({
      conversation: undefined,
      recorded: undefined,
    });

    const [request] = await requestsOf(() => reads.read(id, { progress: false }));
    expect(JSON.stringify(request?.body)).not.toMatch(/POST#|PROGRESS/);
  });

  it('leaves a timeline it cannot read to the progress code, and still answers the rest', async () => {
    const id = await conversation();
    await DynamoDBDocumentClient.from(db.client).send(
      new PutCommand({
        TableName: db.tableName,
        Item: { pk: keys.conversation(id).pk, sk: 'PROGRESS', open: 'yes' },
      }),
    );

    const read = await reads.read(id, { idempotencyKey: 'answer:3', progress: true });

    expect(read.progress).toBeUndefined();
    expect(read.conversation?.id).toBe(id);
  });

  it('refuses a recorded post that is not one, as the post ledger does', async () => {
    const id = await conversation();
    await DynamoDBDocumentClient.from(db.client).send(
      new PutCommand({ TableName: db.tableName, Item: { ...keys.post(id, 'answer:4'), ts: 7 } }),
    );

    await expect(reads.read(id, { idempotencyKey: 'answer:4', progress: false })).rejects.toMatchObject({
      name: 'CorruptItemError',
    });
  });
});
