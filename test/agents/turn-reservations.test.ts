import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoConversationBudget,
  DynamoConversationReservations,
} from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { AgentLimits } from '../../lambdas/agents/limits.ts';
import type { ModelPrice } from '../../lambdas/agents/pricing.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { keys } from '../../lambdas/kernel/keys.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { httpError, submit, withUsage } from '../support/scripted-model.ts';
import { CONVERSATION, turnDeps, turnInput, useScriptedModel, validFindings } from './support.ts';

/**
 * An agent turn's model calls, each reserved before it runs (its worst case, on the day's
 * counter and the conversation's record) and settled after: real adapters on dynalite.
 */

const scripted = useScriptedModel({ strict: false });
const PRICE: ModelPrice = {
  inputPerMillion: 1,
  outputPerMillion: 10,
  cacheWritePerMillion: 2,
  cacheReadPerMillion: 0.1,
};
const NOON = new Date('2015-11-23T12:00:00Z');

let db: Awaited<ReturnType<typeof startDynalite>>;
let day: DynamoDailySpend;
let store: DynamoConversationStore;
let reservations: DynamoConversationReservations;
let budget: DynamoConversationBudget;

beforeAll(async () => {
  db = await startDynalite();
  day = new DynamoDailySpend({ client: db.client, tableName: db.tableName });
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  reservations = new DynamoConversationReservations({ client: db.client, tableName: db.tableName });
  budget = new DynamoConversationBudget({ client: db.client, tableName: db.tableName });
  await store.createConversation({ ...bugConversation(CONVERSATION), createdAt: NOON.toISOString() });
});
afterAll(() => db.close());

const deps = (baseUrl: string, limits: Partial<AgentLimits>, now = NOON) =>
  turnDeps(baseUrl, {
    price: PRICE,
    limits: AgentLimits.parse(limits),
    conversationBudget: budget,
    dailySpend: day,
    reservations: { day, conversation: reservations },
    clock: { now: () => now },
  });

const counters = async () => {
  const { Item } = await DynamoDBDocumentClient.from(db.client).send(
    new GetCommand({ TableName: db.tableName, Key: keys.conversation(CONVERSATION), ConsistentRead: true }),
  );
  return { tokens: Item?.budgetTokens, microUsd: Item?.budgetMicroUsd };
};

describe('reservations around an agent turn’s model calls', () => {
  it('settles a call to its real cost on the day and on the conversation', async () => {
    const server = await scripted([
      withUsage(submit(validFindings), { input_tokens: 1_000, output_tokens: 100 }),
    ]);

    const output = await runAgentTurn(turnInput(), deps(server.baseUrl, { maxDailyCostUsd: 5 }));

    expect(output.action).toBe('post_findings');
    expect(await day.spentOn('2015-11-23')).toBe(2_000);
    expect(await counters()).toEqual({ tokens: 1_100, microUsd: 2_000 });
  });

  it('gives the whole reservation back when the call fails', async () => {
    const server = await scripted([httpError(400, 'bad request')]);

    const output = await runAgentTurn(turnInput({ turn: 2 }), deps(server.baseUrl, { maxDailyCostUsd: 5 }));

    expect(output.action).toBe('escalate');
    expect(await day.spentOn('2015-11-23')).toBe(2_000);
    expect(await counters()).toEqual({ tokens: 1_100, microUsd: 2_000 });
  });

  it('makes no call when the reservation is refused, and says which budget it was', async () => {
    const server = await scripted([]);

    const output = await runAgentTurn(
      turnInput({ turn: 3 }),
      deps(server.baseUrl, { maxDailyCostUsd: 5, maxConversationTokens: 1_100 }),
    );

    expect(server.requests).toHaveLength(0);
    expect(output).toMatchObject({
      action: 'escalate',
      error: 'it used its budget of 1,100 model tokens',
    });
    // The day's reservation made before the conversation refused was given back.
    expect(await day.spentOn('2015-11-23')).toBe(2_000);
  });

  it('gives back the reservation made beside the stop check when people stopped the turn', async () => {
    const server = await scripted([]);

    const output = await runAgentTurn(turnInput({ turn: 4 }), {
      ...deps(server.baseUrl, { maxDailyCostUsd: 5 }),
      stopRequested: async () => true,
    });

    expect(output.action).toBe('continue');
    expect(server.requests).toHaveLength(0);
    expect(await day.spentOn('2015-11-23')).toBe(2_000);
    expect(await counters()).toEqual({ tokens: 1_100, microUsd: 2_000 });
  });
});
