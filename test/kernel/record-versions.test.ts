import { readFileSync } from 'node:fs';
import { type AttributeValue, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoConversationBudget,
  DynamoConversationReservations,
} from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { DynamoEnvelopeStore } from '../../lambdas/adapters/dynamo-envelopes.ts';
import { DynamoOutbox } from '../../lambdas/adapters/dynamo-outbox.ts';
import { DynamoPostLedger } from '../../lambdas/adapters/dynamo-post-ledger.ts';
import { DynamoProgressStore } from '../../lambdas/adapters/dynamo-progress-store.ts';
import { withRecordVersions } from '../../lambdas/adapters/dynamo-record-versions.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { DynamoTranscriptStore } from '../../lambdas/adapters/dynamo-transcripts.ts';
import { DynamoWorkBranches } from '../../lambdas/adapters/dynamo-work-branches.ts';
import { DynamoFeedbackStore } from '../../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import { RecordVersionNotReadableError, UnknownRecordKindError } from '../../lambdas/kernel/errors.ts';
import { RECORD_KINDS, readableVersions, recordKindOf } from '../../lambdas/kernel/record-versions.ts';
import { DynamoChannelStore } from '../../lambdas/workflows/channel-conversations/adapters/dynamo-channel-store.ts';
import { DynamoIncidentStore } from '../../lambdas/workflows/incident-investigation/adapters/dynamo-incident-store.ts';
import { DynamoEvidenceLedger } from '../../lambdas/workflows/incident-investigation/telemetry/dynamo-evidence-ledger.ts';
import { DynamoIssueStateStore } from '../../lambdas/workflows/issue-pipeline/adapters/dynamo-issue-state.ts';
import { startDynalite } from '../support/dynalite.ts';

type Raw = Record<string, AttributeValue>;

/** DynamoDB JSON with binary values in base64, as produce.ts writes it. */
function loadFixture(name: string): Raw[] {
  const text = readFileSync(new URL(`../fixtures/records/${name}`, import.meta.url), 'utf8');
  return JSON.parse(text, (key, value: unknown) =>
    key === 'B' && typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : value,
  ) as Raw[];
}

const PREVIOUS = loadFixture('unversioned-a7f72d9.json');
const keyOf = (item: Raw) => ({ pk: String(item.pk?.S), sk: String(item.sk?.S) });
const CONV = 'bug-investigation-C0001-1000000000-000100';
const INCIDENT = 'incident-investigation-C0003-1000000000-000300';
const CHANNEL_CONV = 'channel-conversations-C0002-1000000000-000200';

let db: Awaited<ReturnType<typeof startDynalite>>;
let doc: DynamoDBDocumentClient;
const table = () => ({ client: db.client, tableName: db.tableName });

beforeAll(async () => {
  db = await startDynalite('Records', { inProcess: true });
  doc = withRecordVersions(DynamoDBDocumentClient.from(db.client));
  for (const item of PREVIOUS)
    await db.client.send(new PutItemCommand({ TableName: db.tableName, Item: item }));
});
afterAll(() => db.close());

const raw = async (key: { pk: string; sk: string }) =>
  (
    await db.client.send(
      new GetItemCommand({ TableName: db.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }),
    )
  ).Item;

describe('the previous release’s records', () => {
  it('name a record kind each, and every kind the previous release wrote has one', () => {
    const kinds = PREVIOUS.map((item) => recordKindOf(keyOf(item)));
    expect(kinds).not.toContain(undefined);
    const previous = (Object.keys(RECORD_KINDS) as (keyof typeof RECORD_KINDS)[]).filter((name) =>
      readableVersions(name).includes(0),
    );
    expect(new Set(kinds)).toEqual(new Set(previous));
    // Only the kinds this release adds have no unversioned records to read.
    expect(Object.keys(RECORD_KINDS).filter((name) => !previous.includes(name as never))).toEqual([
      'channelLedger',
      'redactionsSeen',
      'refusedSource',
    ]);
    expect(PREVIOUS.some((item) => 'schemaVersion' in item)).toBe(false);
  });

  it('are read by this release’s readers with what was written', async () => {
    const store = new DynamoConversationStore(table());
    const conversation = await store.getConversation(CONV);
    expect(conversation?.wait?.taskToken).toBe('token-of-the-reporter-wait');
    expect(conversation?.ledger?.costMicroUsd).toBe(5400);
    expect(conversation?.approvals?.fix?.nonce).toBe('nonce-0001');
    expect((await store.findThread('C0001', '1000000000.000100'))?.conversationId).toBe(CONV);
    expect((await store.listMessages(CONV)).map((m) => m.text)).toEqual([
      'The export button does nothing since this morning.',
      'It still fails after a reload.',
    ]);
    expect((await new DynamoPostLedger(table()).find(CONV, 'post:1'))?.ts).toBe('1000000003.000100');
    expect(await new DynamoConversationBudget(table()).spend(CONV)).toMatchObject({
      tokens: 1500,
      costMicroUsd: 5400,
    });
    const reservations = new DynamoConversationReservations(table());
    expect((await reservations.expired(CONV, Date.parse('2001-02-04T00:00:00Z'))).map((r) => r.id)).toEqual([
      'turn-2',
    ]);
    expect(await new DynamoWorkBranches(table()).recorded(CONV)).toBe('agents/bug-1');
    expect((await new DynamoProgressStore(table()).load(CONV))?.ts).toBe('1000000004.000100');
    expect(await new DynamoTranscriptStore(table()).load(CONV, 'session-1')).toHaveLength(2);
    expect(await new DynamoEnvelopeStore(table()).getEnvelope('dedup-0001')).toContain('large');
    expect(await new DynamoDailySpend(table()).spentOn('2001-02-03')).toBe(5400);
    const outbox = new DynamoOutbox(table());
    expect(await outbox.conversationsWaiting()).toEqual([CONV]);
    expect((await outbox.waiting(CONV)).length).toBeGreaterThan(0);
    expect((await outbox.resolve(CONV, 'outbox-2'))?.ts).toBe('1000000005.000100');
    expect((await new DynamoFeedbackStore(table()).list(CONV)).map((f) => f.vote)).toEqual(['down']);
    const channels = new DynamoChannelStore(table());
    expect((await channels.getConversation('C0002'))?.conversationId).toBe(CHANNEL_CONV);
    expect(await channels.listMessages(CHANNEL_CONV)).toHaveLength(1);
    expect((await channels.listBotTurns(CHANNEL_CONV)).map((t) => t.answer)).toEqual(['The payments team.']);
    expect(await channels.isAnswered(CHANNEL_CONV, '1000000000.000200')).toBe(true);
    expect(await channels.isBotMessage('C0002', '1000000001.000200')).toBe(true);
    const incidents = new DynamoIncidentStore(table());
    expect((await incidents.getRecord(INCIDENT))?.channel).toBe('C0003');
    expect((await incidents.listNodes(INCIDENT)).map((n) => n.id)).toEqual(['H1']);
    const evidence = new DynamoEvidenceLedger(table());
    expect((await evidence.listEvidence(INCIDENT)).map((e) => e.id)).toEqual(['ev-1']);
    const issues = new DynamoIssueStateStore(table());
    expect((await issues.load('issue-pipeline-github-o-r-7')).issue.number).toBe(7);
    expect((await issues.baseline('o/r', 'a'.repeat(40)))?.results.passed).toBe(true);
  });

  it('come back whole when read and written again, saying the current version', async () => {
    for (const item of PREVIOUS) {
      const key = keyOf(item);
      const { Item } = await doc.send(new GetCommand({ TableName: db.tableName, Key: key }));
      expect(Item, `${key.pk}/${key.sk}`).not.toHaveProperty('schemaVersion');
      await doc.send(new PutCommand({ TableName: db.tableName, Item }));
      const kind = recordKindOf(key);
      expect(kind).toBeDefined();
      expect(await raw(key), `${key.pk}/${key.sk}`).toEqual({
        ...item,
        schemaVersion: { N: String(RECORD_KINDS[kind as keyof typeof RECORD_KINDS].current) },
      });
    }
  });
});

describe('record versions', () => {
  it('stamps a put item with its kind’s current version', async () => {
    const key = { pk: 'INBOX#stamp', sk: 'ENVELOPE' };
    await doc.send(new PutCommand({ TableName: db.tableName, Item: { ...key, body: 'x' } }));
    expect((await raw(key))?.schemaVersion).toEqual({ N: '1' });
  });

  it('gives an update’s new item the current version, and keeps an older item’s', async () => {
    const created = { pk: 'SPEND#2001-03-04', sk: 'SPEND' };
    await doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: created,
        UpdateExpression: 'ADD microUsd :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    expect((await raw(created))?.schemaVersion).toEqual({ N: '1' });
    const older = { pk: 'SPEND#2001-03-05', sk: 'SPEND' };
    await db.client.send(
      new PutItemCommand({
        TableName: db.tableName,
        Item: { pk: { S: older.pk }, sk: { S: older.sk }, microUsd: { N: '1' }, schemaVersion: { N: '0' } },
      }),
    );
    await doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: older,
        UpdateExpression: 'SET microUsd = :two',
        ExpressionAttributeValues: { ':two': 2 },
      }),
    );
    expect(await raw(older)).toMatchObject({ microUsd: { N: '2' }, schemaVersion: { N: '0' } });
  });

  it('refuses a record of a version this release does not read, naming its key and version', async () => {
    const key = { pk: 'THREAD#C9#1', sk: 'THREAD' };
    await db.client.send(
      new PutItemCommand({
        TableName: db.tableName,
        Item: { pk: { S: key.pk }, sk: { S: key.sk }, conversationId: { S: 'c' }, schemaVersion: { N: '2' } },
      }),
    );
    const read = doc.send(new GetCommand({ TableName: db.tableName, Key: key }));
    await expect(read).rejects.toBeInstanceOf(RecordVersionNotReadableError);
    await expect(read).rejects.toThrow(
      'stored item THREAD#C9#1/THREAD has schema version 2; this release reads 0, 1',
    );
  });

  it('refuses to write a key of no record kind', async () => {
    const write = doc.send(new PutCommand({ TableName: db.tableName, Item: { pk: 'NOPE#1', sk: 'X' } }));
    await expect(write).rejects.toBeInstanceOf(UnknownRecordKindError);
    expect(await raw({ pk: 'NOPE#1', sk: 'X' })).toBeUndefined();
  });

  it('reads every version from the oldest upgrade to the current one', () => {
    for (const name of Object.keys(RECORD_KINDS) as (keyof typeof RECORD_KINDS)[]) {
      const added = ['refusedSource', 'redactionsSeen', 'channelLedger'].includes(name);
      expect(readableVersions(name), name).toEqual(added ? [1] : [0, 1]);
    }
  });
});
