import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationReservations } from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoRunningTurns } from '../../lambdas/adapters/dynamo-running-turns.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { keys } from '../../lambdas/kernel/keys.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * Writes of the conversation record that add to its ledger in the same update: Drain's, which
 * ends the wait, and the one that takes an agent turn's running-turn note off (a task's time,
 * beside how the turn ended);
 * the settle of a model call's reservation, and its late add once the reservation expired (the
 * call's usage). test/agents/agent-turn-handler.test.ts runs a turn and counts the updates. A
 * record written without a `ledger` map still gets both the write and the counts.
 */

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => {
  await db.close();
});

/** A bug conversation's record; `withoutLedger` removes its ledger map, as an older record may lack it. */
async function conversation(id: string, withoutLedger = false): Promise<string> {
  await store.createConversation(bugConversation(id));
  if (withoutLedger) {
    const key = keys.conversation(id);
    await db.client.send(
      new UpdateItemCommand({
        TableName: db.tableName,
        Key: { pk: { S: key.pk }, sk: { S: key.sk } },
        UpdateExpression: 'REMOVE ledger',
      }),
    );
    expect((await store.getConversation(id, { consistent: true }))?.ledger?.lambdaMs ?? 0).toBe(0);
  }
  return id;
}

describe('the end of a running turn', () => {
  const turns = () => new DynamoRunningTurns({ client: db.client, tableName: db.tableName });

  it.each([
    ['a record with a ledger map', false],
    ['a record written without one', true],
  ])('takes the note off and adds the time in %s', async (_, withoutLedger) => {
    const id = await conversation(`conv-turn-${withoutLedger ? 'no-ledger' : 'ledger'}`, withoutLedger);
    await turns().started(id, '1@2099-01-01T00:00:00.000Z');
    expect((await store.getConversation(id, { consistent: true }))?.runningTurns).toEqual([
      '1@2099-01-01T00:00:00.000Z',
    ]);

    await turns().ended(id, '1@2099-01-01T00:00:00.000Z', { lambdaMs: 1234 });

    const after = await store.getConversation(id, { consistent: true });
    expect(after?.runningTurns ?? []).toEqual([]);
    expect(after?.ledger?.lambdaMs).toBe(1234);
  });

  it('notes how the turn ended in the same update; a late retry takes its note off all the same', async () => {
    const id = await conversation('conv-turn-streak');
    const ends: string[] = [];
    const stop = db.observe((operation, body) => {
      if (operation === 'UpdateItem' && String(body.UpdateExpression).startsWith('DELETE'))
        ends.push(String(body.UpdateExpression));
    });
    try {
      await turns().started(id, '1@2099-01-01T00:00:00.000Z');
      await turns().ended(id, '1@2099-01-01T00:00:00.000Z', { lambdaMs: 10 }, { turn: 1, continued: true });
      await turns().started(id, '2@2099-01-01T00:01:00.000Z');
      await turns().ended(id, '2@2099-01-01T00:01:00.000Z', { lambdaMs: 20 }, { turn: 2, continued: false });
      // Turn 1 again, retried late, ends without continuing: turn 2 reset the streak already.
      await turns().started(id, '1@2099-01-01T00:02:00.000Z');
      await turns().ended(id, '1@2099-01-01T00:02:00.000Z', { lambdaMs: 5 }, { turn: 1, continued: false });
    } finally {
      stop();
    }

    // (The record's schema version is set in every write too.)
    const noted = /^DELETE runningTurns :entry ADD ledger\.#l0 :l0 SET .*\bstreakFrom = :turn$/;
    expect(ends).toEqual([
      expect.stringMatching(/^DELETE runningTurns :entry ADD continueTurns :turns, ledger\.#l0 :l0 SET /),
      expect.stringMatching(noted),
      // The late retry: refused on the streak's condition, then the note off and the time added.
      expect.stringMatching(noted),
      expect.not.stringMatching(/streakFrom|continueTurns/),
    ]);
    const after = await rawRecord(id);
    expect(after?.runningTurns).toBeUndefined();
    expect(after?.continueTurns).toEqual(new Set([1]));
    expect(after?.streakFrom).toBe(2);
    expect(after?.ledger).toMatchObject({ lambdaMs: 35 });
  });
});

describe("Drain's write", () => {
  it.each([
    ['a record with a ledger map', false],
    ['a record written without one', true],
  ])('ends the wait, sets the mark and adds the time in %s', async (_, withoutLedger) => {
    const id = await conversation(`conv-drain-${withoutLedger ? 'no-ledger' : 'ledger'}`, withoutLedger);
    await store.openWait(
      id,
      { waitId: 'w-1', taskToken: 'token-1', accepts: ['reporter'], since: new Date().toISOString() },
      'awaiting_reporter',
    );

    const ended = await store.endWait(id, { mark: { phase: 'investigating' }, ledger: { lambdaMs: 42 } });

    expect(ended.wait).toBeUndefined();
    expect(ended.phase).toBe('investigating');
    // Without the map, the write comes back before the time is added: read it again.
    const after = await store.getConversation(id, { consistent: true });
    expect(after?.ledger?.lambdaMs).toBe(42);
  });
});

/** The record as stored, its budget counters included (the conversation's schema leaves them out). */
async function rawRecord(id: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await DynamoDBDocumentClient.from(db.client).send(
    new GetCommand({ TableName: db.tableName, Key: keys.conversation(id), ConsistentRead: true }),
  );
  return Item;
}

describe("a model call's reservation", () => {
  const reservations = () =>
    new DynamoConversationReservations({ client: db.client, tableName: db.tableName });
  const open = { id: 'r-1', day: '2015-11-21', tokens: 1_000, microUsd: 500, expiresAtMs: 4_102_444_800_000 };
  const usage = { inputTokens: 300, outputTokens: 40, costMicroUsd: 120 };

  it.each([
    ['a record with a ledger map', false],
    ['a record written without one', true],
  ])('is settled with the call usage added to the ledger in %s', async (_, withoutLedger) => {
    const id = await conversation(`conv-settle-${withoutLedger ? 'no-ledger' : 'ledger'}`, withoutLedger);
    expect(await reservations().reserve(id, open, { maxTokens: 1_000_000 })).toEqual({ granted: true });

    expect(await reservations().settle(id, open.id, { tokens: -660, microUsd: -380 }, usage)).toBe(true);

    const after = await rawRecord(id);
    expect(after?.ledger).toMatchObject(usage);
    expect(after).toMatchObject({ budgetTokens: 340, budgetMicroUsd: 120 });
    // Settled once: a second settle changes nothing, the ledger included.
    expect(await reservations().settle(id, open.id, { tokens: -660, microUsd: -380 }, usage)).toBe(false);
    expect((await store.getConversation(id, { consistent: true }))?.ledger).toMatchObject(usage);
  });

  it('adds the usage with the real cost once the reservation expired', async () => {
    const id = await conversation('conv-late-add', true);

    await reservations().add(id, { tokens: 340, microUsd: 120 }, usage);

    const after = await rawRecord(id);
    expect(after?.ledger).toMatchObject(usage);
    expect(after).toMatchObject({ budgetTokens: 340, budgetMicroUsd: 120 });
  });
});
