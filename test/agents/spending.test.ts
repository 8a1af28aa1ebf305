import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationBudget } from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { AgentLimits, type DailySpendStore } from '../../lambdas/agents/limits.ts';
import type { ModelPrice } from '../../lambdas/agents/pricing.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { submit, toolUse, withUsage } from '../support/scripted-model.ts';
import {
  fakeTools,
  ledgerRecorder,
  turnDeps,
  turnInput,
  useScriptedModel,
  validFindings,
} from './support.ts';

const scripted = useScriptedModel({ strict: false });
const history = () => toolUse('get_bug_conversations', { bug_id: 'x' });
const tools = () => fakeTools({ get_bug_conversations: () => 'history' }).invoker;
/** $1 per million in, $10 out, cache at $2 and $0.10: round figures for the assertions. */
const PRICE: ModelPrice = {
  inputPerMillion: 1,
  outputPerMillion: 10,
  cacheWritePerMillion: 2,
  cacheReadPerMillion: 0.1,
};
const NOON = new Date('2015-11-23T12:00:00Z');
const limits = (overrides: Partial<AgentLimits> = {}) => AgentLimits.parse(overrides);

/** A day counter in memory. */
function memoryDays(start: Record<string, number> = {}) {
  const days = new Map(Object.entries(start));
  const store: DailySpendStore = {
    spentOn: async (day) => days.get(day) ?? 0,
    add: async (day, cost) => {
      days.set(day, (days.get(day) ?? 0) + cost);
    },
  };
  return { store, days };
}

const spentNothing = {
  spend: async () => ({
    createdAt: NOON.toISOString(),
    tokens: 0,
    costMicroUsd: 0,
    consecutiveContinues: 0,
  }),
  recordTurnEnd: async () => {},
};

describe('the cost of agent turns', () => {
  it("puts each call's estimated cost in the ledger and adds it to the day's spend", async () => {
    const server = await scripted([
      withUsage(history(), {
        input_tokens: 1_000,
        cache_creation_input_tokens: 2_000,
        cache_read_input_tokens: 10_000,
        output_tokens: 100,
      }),
      withUsage(submit(validFindings), { input_tokens: 500, output_tokens: 50 }),
    ]);
    const ledger = ledgerRecorder();
    const days = memoryDays();

    await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        tools: tools(),
        ledger: ledger.write,
        price: PRICE,
        dailySpend: days.store,
        clock: { now: () => NOON },
      }),
    );

    const first = 1_000 * 1 + 2_000 * 2 + 10_000 * 0.1 + 100 * 10;
    const second = 500 * 1 + 50 * 10;
    expect(ledger.deltas.map((delta) => delta.costMicroUsd)).toEqual([first, second]);
    expect(ledger.total('cacheWriteTokens')).toBe(2_000);
    expect(days.days.get('2015-11-23')).toBe(first + second);
  });

  it("writes a call's cost to the day's counter and to the ledger side by side", async () => {
    const server = await scripted([
      withUsage(submit(validFindings), { input_tokens: 500, output_tokens: 50 }),
    ]);
    // Each write takes a turn of the event loop: side by side, both start before either ends.
    const writes: string[] = [];
    const aTurnOfTheLoop = () => new Promise((resolve) => setImmediate(resolve));
    const days = memoryDays();

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        ledger: async () => {
          writes.push('ledger started');
          await aTurnOfTheLoop();
          writes.push('ledger written');
        },
        price: PRICE,
        dailySpend: {
          ...days.store,
          add: async (date, cost) => {
            writes.push('day started');
            await aTurnOfTheLoop();
            await days.store.add(date, cost);
            writes.push('day written');
          },
        },
        clock: { now: () => NOON },
      }),
    );

    expect(output.action).toBe('post_findings');
    expect(writes.slice(0, 2).sort()).toEqual(['day started', 'ledger started']);
    expect(writes.slice(2).sort()).toEqual(['day written', 'ledger written']);
    expect(days.days.get('2015-11-23')).toBe(500 * 1 + 50 * 10);
  });

  it('stops before the next call once the turn spent the rest of the money budget', async () => {
    const server = await scripted([
      withUsage(history(), { input_tokens: 0, output_tokens: 10_000 }),
      history(),
    ]);

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        tools: tools(),
        price: PRICE,
        limits: limits({ maxConversationCostUsd: 0.15 }),
        conversationBudget: {
          ...spentNothing,
          spend: async () => ({ ...(await spentNothing.spend()), costMicroUsd: 60_000 }),
        },
        clock: { now: () => NOON },
      }),
    );

    // 0.06 before the turn + 0.10 for the call: over 0.15, so no second request.
    expect(server.requests).toHaveLength(1);
    expect(output).toMatchObject({
      action: 'escalate',
      error: 'it used its budget of $0.15 of estimated model cost',
    });
  });

  it("makes no model call once the day's spend reached the daily ceiling, and says why", async () => {
    const server = await scripted([]);
    const days = memoryDays({ '2015-11-23': 5_000_000 });

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        price: PRICE,
        limits: limits({ maxDailyCostUsd: 5 }),
        conversationBudget: spentNothing,
        dailySpend: days.store,
        clock: { now: () => NOON },
      }),
    );

    expect(server.requests).toHaveLength(0);
    expect(output.action).toBe('escalate');
    expect(output.error).toBe(
      'the platform reached its spending ceiling of $5.00 of estimated model cost for today (2015-11-23, UTC); it resets at midnight UTC',
    );
  });

  it("runs the turn when only yesterday's spend reached the ceiling", async () => {
    const server = await scripted([submit(validFindings)]);
    const days = memoryDays({ '2015-11-22': 9_000_000 });

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        price: PRICE,
        limits: limits({ maxDailyCostUsd: 5 }),
        conversationBudget: spentNothing,
        dailySpend: days.store,
        clock: { now: () => NOON },
      }),
    );

    expect(output.action).toBe('post_findings');
    expect(server.requests).toHaveLength(1);
  });
});

describe('the daily spend counter in DynamoDB', () => {
  let db: Awaited<ReturnType<typeof startDynalite>>;
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => db?.close());

  it('adds concurrent increments atomically, per UTC day, and reads 0 for a day with none', async () => {
    const spend = new DynamoDailySpend({ client: db.client, tableName: db.tableName });

    await Promise.all(Array.from({ length: 50 }, (_, i) => spend.add('2015-11-23', i + 1)));
    await spend.add('2015-11-24', 7);
    await spend.add('2015-11-24', 0);

    expect(await spend.spentOn('2015-11-23')).toBe((50 * 51) / 2);
    expect(await spend.spentOn('2015-11-24')).toBe(7);
    expect(await spend.spentOn('2015-11-25')).toBe(0);
  });

  it("reads the conversation's estimated cost from its ledger for the money budget", async () => {
    const store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
    const budget = new DynamoConversationBudget({ client: db.client, tableName: db.tableName });
    await store.createConversation(bugConversation('cost-1'));

    await store.addToLedger('cost-1', { inputTokens: 10, costMicroUsd: 1_234 });
    await store.addToLedger('cost-1', { outputTokens: 5, costMicroUsd: 66 });

    expect(await budget.spend('cost-1')).toMatchObject({ tokens: 15, costMicroUsd: 1_300 });
    expect((await store.getConversation('cost-1'))?.ledger).toMatchObject({ costMicroUsd: 1_300 });
  });
});
