import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRedactionLedger } from '../../lambdas/adapters/dynamo-redaction-ledger.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { redactingModel } from '../../lambdas/adapters/redacting-model.ts';
import type { ModelClient } from '../../lambdas/agents/ports.ts';
import { ConversationNotFoundError } from '../../lambdas/kernel/errors.ts';
import {
  inConversation,
  RedactionSettings,
  Redactor,
  tallyingRedactions,
} from '../../lambdas/redaction/index.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { fakeValues, grouped } from './fake-values.ts';

/**
 * Every door's replacements are tallied per invocation and counted in the conversation's ledger
 * by kind, once per value: not again when the value passes another door, in another invocation,
 * or when a placeholder passes a later door.
 */

const v = fakeValues(5);
const SETTINGS = RedactionSettings.parse({ pii: ['email', 'card'] });
let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let ledger: DynamoRedactionLedger;

beforeAll(async () => {
  db = await startDynalite('RedactionLedger');
  const options = { client: db.client, tableName: db.tableName };
  store = new DynamoConversationStore(options);
  ledger = new DynamoRedactionLedger(options);
});
afterAll(() => db?.close());

/** A provider that answers nothing: the model door's request is all that matters here. */
const provider: ModelClient = {
  createMessage: async () =>
    ({ content: [] }) as unknown as Awaited<ReturnType<ModelClient['createMessage']>>,
};

/** One invocation's work, tallied, its tally counted in the ledger. */
async function invocation(work: () => Promise<unknown>): Promise<void> {
  await tallyingRedactions(work, async (made) => {
    for (const [id, placeholders] of made) await ledger.record(id, placeholders);
  });
}

describe("the conversation's redaction counts", () => {
  it('count each value once, by kind, whichever doors and invocations it passes', async () => {
    await store.createConversation(bugConversation('conv-counts'));
    const text = `key ${v.awsAccessKey} for ${v.email}, again ${v.awsAccessKey}, card ${v.card}`;
    // The turn's prompt door and the model door in one invocation: the prompt's placeholders pass
    // the model door as they are, and the model's raw quote of the card is the same value.
    await invocation(() =>
      inConversation('conv-counts', async () => {
        const prompt = await new Redactor('conv-counts', SETTINGS, 'conv-counts').redact(text);
        await redactingModel(provider, SETTINGS, 'model').createMessage({
          model: 'm',
          max_tokens: 1,
          messages: [{ role: 'user', content: `${prompt.text} ${grouped(v.card)}` }],
        });
      }),
    );
    // A later invocation (a post quoting the same values) counts nothing new; a new value counts.
    const other = fakeValues(6);
    await invocation(() =>
      inConversation('conv-counts', () =>
        new Redactor('conv-counts', SETTINGS, 'conv-counts').redact(`${text} ${other.email}`),
      ),
    );

    const counted = (await store.getConversation('conv-counts', { consistent: true }))?.ledger;
    expect(counted?.redactedKinds).toEqual({ 'secret:aws-access-key': 1, 'pii:email': 2, 'pii:card': 1 });
    expect(counted?.redactedSecrets).toBe(1);
    expect(counted?.redactedPii).toBe(3);
  });

  it('count nothing for a door outside any conversation, or a redactor counting for none', async () => {
    const made: Parameters<Parameters<typeof tallyingRedactions>[1]>[0][] = [];
    await tallyingRedactions(
      async () => {
        await redactingModel(provider, SETTINGS, 'model').createMessage({
          model: 'm',
          max_tokens: 1,
          messages: [{ role: 'user', content: v.email }],
        });
        await new Redactor('conv-x', SETTINGS).redact(v.email);
      },
      async (tally) => {
        made.push(tally);
      },
    );
    expect(made).toEqual([]);
  });

  it('refuses to count for a conversation with no record, and counts into one written without a ledger', async () => {
    await expect(ledger.record('conv-missing', ['<pii:email#0a0b>'])).rejects.toBeInstanceOf(
      ConversationNotFoundError,
    );
    const { ledger: _none, ...bare } = bugConversation('conv-bare');
    await store.createConversation(bare);
    expect(await ledger.record('conv-bare', ['<pii:email#0a0b>', '<pii:email#ffff>'])).toEqual({
      'pii:email': 2,
    });
    expect((await store.getConversation('conv-bare', { consistent: true }))?.ledger?.redactedKinds).toEqual({
      'pii:email': 2,
    });
  });

  it("counts a conversation another ledger keeps there, once per value, and no other conversation's", async () => {
    const kept: [string, Record<string, number>][] = [];
    const other = async (conversationId: string, added: Record<string, number>) => {
      if (!conversationId.startsWith('channel-')) return false;
      kept.push([conversationId, added]);
      return true;
    };
    expect(
      await ledger.record('channel-C1-1-1', ['<pii:email#0a0b>', '<secret:github-token#0001>'], other),
    ).toEqual({
      'pii:email': 1,
      'secret:github-token': 1,
    });
    // The same value again: nothing new to count, so the other ledger is not asked.
    await ledger.record('channel-C1-1-1', ['<pii:email#0a0b>'], other);
    expect(kept).toEqual([['channel-C1-1-1', { 'pii:email': 1, 'secret:github-token': 1 }]]);
    // A conversation the other ledger does not keep is the kernel record's (none here).
    await expect(ledger.record('conv-missing-2', ['<pii:email#0a0b>'], other)).rejects.toBeInstanceOf(
      ConversationNotFoundError,
    );
  });
});
