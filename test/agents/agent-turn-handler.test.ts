import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { DynamoTranscriptStore } from '../../lambdas/adapters/dynamo-transcripts.ts';
import type { BugTurnOutput } from '../../lambdas/workflows/bug-investigation/contract.ts';
import { handler } from '../../lambdas/workflows/bug-investigation/handlers/agent-turn.ts';
import { bugConversation } from '../support/conversations.ts';
import { handlerEnvironment, startDynalite } from '../support/dynalite.ts';
import { startScriptedModel, submit, toolUse, withUsage } from '../support/scripted-model.ts';
import { CONVERSATION, turnInput, validFindings } from './support.ts';

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

const context = (remainingMs: number) =>
  ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  model = await startScriptedModel({
    steps: [
      withUsage(submit(validFindings), {
        input_tokens: 700,
        output_tokens: 80,
        cache_read_input_tokens: 300,
      }),
      toolUse('get_bug_conversations', { bug_id: CONVERSATION }),
      toolUse('get_bug_conversations', { bug_id: CONVERSATION }),
    ],
  });
  Object.assign(process.env, handlerEnvironment(db), {
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: model.baseUrl,
    MODEL_ID: 'claude-test',
    MODEL_MAX_RETRIES: '0',
    TOOL_FUNCTIONS: '{}',
    AGENT_MAX_TOOL_CALLS: '0',
  });
  await store.createConversation(bugConversation(CONVERSATION));
});
afterAll(async () => {
  await model.close();
  await db.close();
});

// In file order: the unknown provider first, before a successful turn caches the adapters.
describe('AgentTurn handler', () => {
  it('refuses an unknown model provider with a clear, named error', async () => {
    process.env.MODEL_PROVIDER = 'vertex';
    try {
      await expect(handler(turnInput(), context(300_000))).rejects.toMatchObject({
        name: 'ModelProviderNotSupportedError',
        message: 'MODEL_PROVIDER=vertex is not a known model provider (expected anthropic or bedrock)',
      });
    } finally {
      delete process.env.MODEL_PROVIDER;
    }
  });

  it('rejects an input that does not match the contract, without calling the model', async () => {
    await expect(
      handler({ conversationId: CONVERSATION, profile: 'bug_investigator' }, context(300_000)),
    ).rejects.toMatchObject({
      name: 'InvalidTaskInputError',
    });
    expect(model.requests).toHaveLength(0);
  });

  it('refuses a role this function does not serve, naming the ones it does, without calling the model', async () => {
    await expect(
      handler({ ...turnInput(), profile: 'issue_writer' }, context(300_000)),
    ).rejects.toMatchObject({
      name: 'ProfileNotFoundError',
      message: 'no agent profile "issue_writer" here (this function serves: bug_investigator, bug_fixer)',
    });
    expect(model.requests).toHaveLength(0);
  });

  it('runs a turn from the task input: structured output, transcript, session and ledger stored', async () => {
    const updates: Record<string, unknown>[] = [];
    const recordReads: Record<string, unknown>[] = [];
    const stop = db.observe((operation, body) => {
      if (operation === 'UpdateItem') updates.push(body);
      if (operation === 'GetItem' && JSON.stringify(body.Key).includes('"S":"META"')) recordReads.push(body);
    });
    const output = (await handler(turnInput(), context(300_000)).finally(stop)) as BugTurnOutput;

    expect(output).toMatchObject({ action: 'post_findings', confidence: 80, severity: 'high' });
    expect(model.requests[0]?.body.model).toBe('claude-test');
    const conversation = await store.getConversation(CONVERSATION, { consistent: true });
    expect(conversation?.sessionId).toBe(output.sessionId);
    expect(conversation?.ledger).toMatchObject({ inputTokens: 700, outputTokens: 80, cacheReadTokens: 300 });
    expect(conversation?.ledger?.lambdaMs).toBeGreaterThan(0);
    // The turn's time goes to the ledger in the update that takes its running-turn note off,
    // not in an update of its own.
    const timing = updates.filter((update) =>
      JSON.stringify(update.ExpressionAttributeNames).includes('lambdaMs'),
    );
    expect(timing.map((update) => update.UpdateExpression)).toEqual([
      expect.stringMatching(/^DELETE runningTurns :entry ADD ledger\.#l0 :l0\b/),
    ]);
    expect(conversation?.runningTurns ?? []).toEqual([]);
    // How the turn ended (it submitted: its streak of continuations restarts) went in that same
    // update, not in one of its own.
    const streak = updates.filter((update) =>
      /streakFrom|continueTurns/.test(String(update.UpdateExpression)),
    );
    expect(streak.map((update) => update.UpdateExpression)).toEqual([
      expect.stringMatching(/^DELETE runningTurns :entry ADD ledger\.#l0 :l0 SET .*\bstreakFrom = :turn$/),
    ]);
    // The call's usage went to the ledger in the update that settled its reservation.
    const usage = updates.filter((update) =>
      Object.values((update.ExpressionAttributeNames ?? {}) as Record<string, string>).includes(
        'inputTokens',
      ),
    );
    expect(usage.map((update) => update.UpdateExpression)).toEqual([
      expect.stringMatching(/^ADD #tokens :tokens, #micro :micro, ledger\.#l0 :l0, .* REMOVE #open\b/),
    ]);
    // What the turn needs of its record at its start (its threads, what it spent, its expired
    // reservations) came back with the update that noted it running: the record's only reads are
    // the stop checks, one before the model call and one after its answer.
    expect(updates[0]).toMatchObject({
      UpdateExpression: expect.stringMatching(/^ADD runningTurns :entry\b/),
      ReturnValues: 'ALL_NEW',
    });
    const stopCheck = expect.stringMatching(/^ownerId, closeRequested, closeRequestedAt, stopRequestedAt\b/);
    expect(recordReads.map((read) => read.ProjectionExpression)).toEqual([stopCheck, stopCheck]);
    const transcripts = new DynamoTranscriptStore({ client: db.client, tableName: db.tableName });
    expect(await transcripts.load(CONVERSATION, output.sessionId)).toHaveLength(3);
  });

  it('takes the tool-call cap from AGENT_MAX_TOOL_CALLS and returns continue when it is reached', async () => {
    const updates: string[] = [];
    const stop = db.observe((operation, body) => {
      if (operation === 'UpdateItem') updates.push(String(body.UpdateExpression));
    });
    const output = (await handler(
      turnInput({ turn: 2, mode: 'continuation', sessionId: 'session-h' }),
      context(300_000),
    ).finally(stop)) as BugTurnOutput;

    expect(output).toMatchObject({ action: 'continue', sessionId: 'session-h' });
    expect(model.failures).toEqual([]);
    // A turn that continued joins the streak in the update that takes its running-turn note off.
    expect(updates.filter((update) => /streakFrom|continueTurns/.test(update))).toEqual([
      expect.stringMatching(/^DELETE runningTurns :entry ADD continueTurns :turns, ledger\.#l0 :l0\b/),
    ]);
  });

  it('names its session on the record only when the record does not name it already', async () => {
    const named = async () => (await store.getConversation(CONVERSATION, { consistent: true }))?.sessionId;
    expect(await named()).toBe('session-h');
    const updates: string[] = [];
    const stop = db.observe((operation, body) => {
      if (operation === 'UpdateItem') updates.push(String(body.UpdateExpression));
    });

    const output = (await handler(
      turnInput({ turn: 3, mode: 'continuation', sessionId: 'session-h' }),
      context(300_000),
    ).finally(stop)) as BugTurnOutput;

    expect(output).toMatchObject({ action: 'continue', sessionId: 'session-h' });
    expect(updates.filter((update) => update.includes('sessionId'))).toEqual([]);
    expect(await named()).toBe('session-h');
    const transcripts = new DynamoTranscriptStore({ client: db.client, tableName: db.tableName });
    expect(await transcripts.load(CONVERSATION, 'session-h', { beforeTurn: 4 })).not.toHaveLength(0);
  });
});
