import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../lambdas/adapters/anthropic-model.ts';
import { DynamoConversationBudget } from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import {
  AgentLimits,
  type ConversationBudgetStore,
  type ConversationSpend,
  continuesReason,
} from '../../lambdas/agents/limits.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import {
  httpError,
  retryAfter,
  SUBMIT_NOW_NOTE,
  submit,
  toolUse,
  withUsage,
} from '../support/scripted-model.ts';
import { fakeTools, heldReply, turnDeps, turnInput, useScriptedModel, validFindings } from './support.ts';

const scripted = useScriptedModel({ strict: false });
const history = () => toolUse('get_bug_conversations', { bug_id: 'x' });
const tools = () => fakeTools({ get_bug_conversations: () => 'history' }).invoker;

/** A conversation budget in memory: what it spent, and every turn end recorded. */
function budgetOf(spend: Partial<ConversationSpend> = {}) {
  const ends: { turn: number; continued: boolean }[] = [];
  const store: ConversationBudgetStore = {
    spend: async () => ({
      createdAt: new Date().toISOString(),
      tokens: 0,
      costMicroUsd: 0,
      consecutiveContinues: 0,
      ...spend,
    }),
    recordTurnEnd: async (_id, turn, continued) => {
      ends.push({ turn, continued });
    },
  };
  return { store, ends };
}

const limits = (overrides: Partial<AgentLimits> = {}) => AgentLimits.parse(overrides);

describe('agent limits within a turn', () => {
  it('reminds a model that never submits after maxToolRounds, then fails the turn two rounds later', async () => {
    const server = await scripted(Array.from({ length: 10 }, history));
    const budget = budgetOf();

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        tools: tools(),
        limits: limits({ maxToolRounds: 3 }),
        conversationBudget: budget.store,
      }),
    );

    expect(server.requests).toHaveLength(5);
    expect(output).toMatchObject({ action: 'escalate' });
    expect(output.error).toBe('the model did not submit a result after 5 tool rounds and a reminder');
    expect(JSON.stringify(server.requests[3]?.body.messages.at(-1))).toContain(SUBMIT_NOW_NOTE);
    expect(JSON.stringify(server.requests[2]?.body.messages.at(-1))).not.toContain(SUBMIT_NOW_NOTE);
    expect(budget.ends).toEqual([{ turn: 1, continued: false }]);
  });

  it('stops before the next model call once the turn spent the rest of the token budget', async () => {
    const server = await scripted([
      withUsage(history(), { input_tokens: 900, output_tokens: 200 }),
      history(),
    ]);

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        tools: tools(),
        limits: limits({ maxConversationTokens: 1_500 }),
        conversationBudget: budgetOf({ tokens: 500 }).store,
      }),
    );

    expect(server.requests).toHaveLength(1);
    expect(output.error).toBe('it used its budget of 1,500 model tokens');
    expect(output.summary).toContain(
      'The automated investigation stopped: it used its budget of 1,500 model tokens',
    );
  });

  it('ends the call at once, as unavailable, when the model asks to wait longer than the cap', async () => {
    const server = await scripted([retryAfter(3_600)]);

    const run = runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        model: createAnthropicModel({
          apiKey: 'test-key',
          baseURL: server.baseUrl,
          maxRetries: 2,
          maxRetryAfterSeconds: 30,
        }),
      }),
    );

    await expect(run).rejects.toMatchObject({ name: 'ModelUnavailableError' });
    await expect(run).rejects.toThrow(/asked to wait 3600 s/);
    expect(server.requests).toHaveLength(1);
  });

  it('waits out a retry-after under the cap, as the SDK does', async () => {
    const server = await scripted([retryAfter(0.2), submit(validFindings)]);

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        model: createAnthropicModel({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 2 }),
      }),
    );

    expect(output.action).toBe('post_findings');
    expect(server.requests).toHaveLength(2);
  });

  it('ends a hanging model call at its own timeout, as unavailable', async () => {
    const hanging = heldReply(submit(validFindings));
    const server = await scripted([hanging.step]);

    const run = runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        model: createAnthropicModel({
          apiKey: 'test-key',
          baseURL: server.baseUrl,
          maxRetries: 0,
          timeoutMs: 200,
        }),
      }),
    );

    await expect(run).rejects.toMatchObject({ name: 'ModelUnavailableError' }).finally(hanging.release);
  });

  it('does not treat a refused request as unavailable: the turn escalates with it', async () => {
    const server = await scripted([httpError(400, 'bad request')]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl));

    expect(output.action).toBe('escalate');
  });
});

describe('agent limits across turns', () => {
  it('stops the turn that would be the third in a row to run out of its budget, with the reason', async () => {
    const server = await scripted([history(), history()]);
    const budget = budgetOf({ consecutiveContinues: 2 });

    const output = await runAgentTurn(
      turnInput({ turn: 3 }),
      turnDeps(server.baseUrl, {
        tools: tools(),
        budget: { deadlineMs: Date.now() + 60_000, maxToolCalls: 1 },
        limits: limits({ maxConsecutiveContinues: 3 }),
        conversationBudget: budget.store,
      }),
    );

    expect(output.action).toBe('escalate');
    expect(output.error).toBe(continuesReason(3));
    expect(budget.ends).toEqual([{ turn: 3, continued: false }]);
  });

  it('lets a turn run out of its budget while the streak is under the limit', async () => {
    const server = await scripted([history(), history()]);
    const budget = budgetOf({ consecutiveContinues: 1 });

    const output = await runAgentTurn(
      turnInput({ turn: 2 }),
      turnDeps(server.baseUrl, {
        tools: tools(),
        budget: { deadlineMs: Date.now() + 60_000, maxToolCalls: 1 },
        limits: limits({ maxConsecutiveContinues: 3 }),
        conversationBudget: budget.store,
      }),
    );

    expect(output.action).toBe('continue');
    expect(budget.ends).toEqual([{ turn: 2, continued: true }]);
  });

  it('makes no model call in a conversation that spent its tokens or its time', async () => {
    const server = await scripted([]);

    const spentTokens = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        limits: limits({ maxConversationTokens: 1_000 }),
        conversationBudget: budgetOf({ tokens: 1_000 }).store,
      }),
    );
    const spentTime = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        limits: limits({ maxConversationSeconds: 3_600 }),
        conversationBudget: budgetOf({ createdAt: new Date(Date.now() - 3_601_000).toISOString() }).store,
      }),
    );

    expect(server.requests).toHaveLength(0);
    expect(spentTokens.error).toBe('it used its budget of 1,000 model tokens');
    expect(spentTime.error).toBe('it reached its time limit of 1 hour');
  });
});

describe('the conversation budget in DynamoDB', () => {
  let db: Awaited<ReturnType<typeof startDynalite>>;
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => db?.close());

  it('counts the turns in a row that continued, once per turn, and restarts after one that did not', async () => {
    const store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
    const budget = new DynamoConversationBudget({ client: db.client, tableName: db.tableName });
    const conversation = bugConversation('budget-1');
    await store.createConversation(conversation);
    await store.addToLedger('budget-1', { inputTokens: 700, outputTokens: 300, cacheReadTokens: 5_000 });

    await budget.recordTurnEnd('budget-1', 1, true);
    await budget.recordTurnEnd('budget-1', 2, true);
    await budget.recordTurnEnd('budget-1', 2, true);
    const twoInARow = await budget.spend('budget-1');
    await budget.recordTurnEnd('budget-1', 3, false);
    await budget.recordTurnEnd('budget-1', 4, true);
    // A late retry of turn 2 cannot undo turn 3's reset.
    await budget.recordTurnEnd('budget-1', 2, false);
    const afterReset = await budget.spend('budget-1');

    expect(twoInARow).toEqual({
      createdAt: conversation.createdAt,
      tokens: 1_000,
      costMicroUsd: 0,
      consecutiveContinues: 2,
    });
    expect(afterReset?.consecutiveContinues).toBe(1);
    expect(await budget.spend('missing')).toBeUndefined();
  });
});
