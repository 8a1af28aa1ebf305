import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationReservations } from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { CallBudget } from '../../lambdas/agents/call-budget.ts';
import { DEFAULT_AGENT_LIMITS } from '../../lambdas/agents/limits.ts';
import { DEFAULT_MODEL_PRICES } from '../../lambdas/agents/pricing.ts';
import { RESERVATION_LIFETIME_MS, worstCaseOf } from '../../lambdas/agents/reservations.ts';
import { keys } from '../../lambdas/kernel/keys.ts';
import { startDynalite } from '../support/dynalite.ts';

/** The tokens a reservation adds for the prompt around what is sent (stated here, not imported: the value is what this test checks). */
const PROMPT_OVERHEAD_TOKENS = 1_000;

/** Reservations against the real DynamoDB protocol (dynalite): atomic, settled, given back. */

let db: Awaited<ReturnType<typeof startDynalite>>;
let day: DynamoDailySpend;
let conversations: DynamoConversationReservations;
let now = new Date('2015-11-24T10:00:00Z');
const clock = { now: () => now };

beforeAll(async () => {
  db = await startDynalite();
  day = new DynamoDailySpend({ client: db.client, tableName: db.tableName });
  conversations = new DynamoConversationReservations({ client: db.client, tableName: db.tableName });
});
afterAll(() => db.close());

async function conversation(id: string, ledger = { inputTokens: 0, outputTokens: 0, costMicroUsd: 0 }) {
  await DynamoDBDocumentClient.from(db.client).send(
    new PutCommand({
      TableName: db.tableName,
      Item: { ...keys.conversation(id), createdAt: now.toISOString(), ledger },
    }),
  );
}

describe('the worst case of a request', () => {
  it('bounds input by the bytes sent plus the overhead, output by max_tokens, at the dearest rates', () => {
    const request = { max_tokens: 1_000, messages: [{ role: 'user' as const, content: 'héllo' }] };
    const sent = Buffer.byteLength(JSON.stringify(['', [], request.messages]), 'utf8');
    const worst = worstCaseOf(request, DEFAULT_MODEL_PRICES['claude-haiku-5-5']);
    expect(worst.tokens).toBe(sent + PROMPT_OVERHEAD_TOKENS + 1_000);
    // Haiku 5.5's long-prompt band is the dearer one: $0.625 cache writes, $2.50 output.
    expect(worst.microUsd).toBe(Math.ceil((sent + PROMPT_OVERHEAD_TOKENS) * 0.625 + 1_000 * 2.5));
    expect(worstCaseOf(request, undefined).microUsd).toBe(0);
  });
});

describe('reservations on the day’s counter', () => {
  it('let forty racing calls carry the day past its ceiling by at most one worst case', async () => {
    const limits = { ...DEFAULT_AGENT_LIMITS, maxDailyCostUsd: 1 };
    const budget = new CallBudget({ limits, day, clock });
    const worst = { tokens: 10_000, microUsd: 300_000 };
    const answers = await Promise.all(Array.from({ length: 40 }, () => budget.reserve(worst)));
    const granted = answers.filter((a) => a.granted);
    expect(granted).toHaveLength(4);
    expect(await day.spentOn('2015-11-24')).toBe(1_200_000);
    const refusal = answers.find((a) => !a.granted);
    expect(refusal && !refusal.granted && refusal.reason).toBe(
      'the platform reached its spending ceiling of $1.00 of estimated model cost for today (2015-11-24, UTC); it resets at midnight UTC',
    );
    // Settling turns each reservation into its real cost; a failed call gives all of it back.
    for (const [i, answer] of granted.entries()) {
      if (!answer.granted) continue;
      if (i === 0) await budget.release(answer.hold);
      else await budget.settle(answer.hold, { tokens: 5_000, microUsd: 100_000 });
    }
    expect(await day.spentOn('2015-11-24')).toBe(300_000);
  });
});

describe('the day’s counter without a daily ceiling', () => {
  it('holds nothing on the day before a call, counts the real cost after it, and sweeps nothing there', async () => {
    now = new Date('2015-11-27T10:00:00Z');
    await conversation('conv-no-ceiling');
    const deps = {
      limits: DEFAULT_AGENT_LIMITS,
      day,
      conversation: { id: 'conv-no-ceiling', store: conversations, bounds: { maxTokens: 50_000 } },
      clock,
    };
    const budget = new CallBudget(deps);
    const worst = { tokens: 1_000, microUsd: 100_000 };
    const called = await budget.reserve(worst);
    expect(called.granted && called.hold.onDay).toBe(false);
    expect(await day.spentOn('2015-11-27')).toBe(0);
    if (called.granted) await budget.settle(called.hold, { tokens: 500, microUsd: 40_000 });
    expect(await day.spentOn('2015-11-27')).toBe(40_000);
    const failed = await budget.reserve(worst);
    if (failed.granted) await budget.release(failed.hold);
    expect(await day.spentOn('2015-11-27')).toBe(40_000);

    // A reservation whose invocation died is given back on the conversation only: the day never held it.
    expect((await budget.reserve(worst)).granted).toBe(true);
    now = new Date(now.getTime() + RESERVATION_LIFETIME_MS + 1);
    expect(await new CallBudget(deps).sweepExpired()).toBe(1);
    expect(await day.spentOn('2015-11-27')).toBe(40_000);
  });
});

describe('reservations on the conversation', () => {
  it('refuses at the conversation’s money budget and gives the day’s reservation back', async () => {
    now = new Date('2015-11-25T10:00:00Z');
    await conversation('conv-cost', { inputTokens: 100, outputTokens: 100, costMicroUsd: 450_000 });
    const limits = { ...DEFAULT_AGENT_LIMITS, maxConversationCostUsd: 0.5, maxDailyCostUsd: 10 };
    const budget = new CallBudget({
      limits,
      day,
      conversation: {
        id: 'conv-cost',
        store: conversations,
        bounds: { maxTokens: 1_000_000, maxMicroUsd: 500_000, seed: { tokens: 200, microUsd: 450_000 } },
      },
      clock,
    });
    const worst = { tokens: 1_000, microUsd: 100_000 };
    const [first, second] = await Promise.all([budget.reserve(worst), budget.reserve(worst)]);
    expect([first?.granted, second?.granted].filter(Boolean)).toHaveLength(1);
    const refused = [first, second].find((a) => a && !a.granted);
    expect(refused && !refused.granted && refused.reason).toBe(
      'it used its budget of $0.50 of estimated model cost',
    );
    expect(await day.spentOn('2015-11-25')).toBe(100_000);
  });

  it('gives back, on the conversation and its day, a reservation whose invocation died mid-call', async () => {
    now = new Date('2015-11-26T10:00:00Z');
    await conversation('conv-dead');
    const deps = {
      limits: { ...DEFAULT_AGENT_LIMITS, maxDailyCostUsd: 10 },
      day,
      conversation: { id: 'conv-dead', store: conversations, bounds: { maxTokens: 50_000 } },
      clock,
    };
    const dead = new CallBudget(deps);
    expect((await dead.reserve({ tokens: 40_000, microUsd: 250_000 })).granted).toBe(true);
    // Within its lifetime the reservation holds: the next call is refused at the token bound.
    const next = new CallBudget(deps);
    expect(await next.sweepExpired()).toBe(0);
    expect((await next.reserve({ tokens: 20_000, microUsd: 1 })).granted).toBe(true);
    expect((await next.reserve({ tokens: 1, microUsd: 1 })).granted).toBe(false);

    now = new Date(now.getTime() + RESERVATION_LIFETIME_MS + 1);
    const later = new CallBudget(deps);
    expect(await later.sweepExpired()).toBe(2);
    expect(await later.sweepExpired()).toBe(0);
    expect(await day.spentOn('2015-11-26')).toBe(0);
    expect((await later.reserve({ tokens: 40_000, microUsd: 1 })).granted).toBe(true);
  });
});
