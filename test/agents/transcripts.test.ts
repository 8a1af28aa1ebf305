import { randomBytes } from 'node:crypto';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { DeleteItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { DynamoTranscriptStore } from '../../lambdas/adapters/dynamo-transcripts.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import {
  lastUserText,
  type ScriptStep,
  startScriptedModel,
  submit,
  toolUse,
  withUsage,
} from '../support/scripted-model.ts';
import { CONVERSATION, drained, fakeTools, turnDeps, turnInput, validFindings } from './support.ts';

/** The most bytes of a transcript one item holds (stated here, not imported: the value is what this test checks). */
const TRANSCRIPT_CHUNK_BYTES = 300_000;

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let model: Awaited<ReturnType<typeof startScriptedModel>> | undefined;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db.close());
afterEach(async () => {
  expect(model?.failures ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

let sequence = 0;
/** A fresh conversation per test, so tests do not see each other's items. */
async function conversation(): Promise<string> {
  sequence += 1;
  const id = `${CONVERSATION}-${sequence}`;
  await store.createConversation(bugConversation(id));
  return id;
}

function transcripts(skipped: unknown[] = []) {
  return new DynamoTranscriptStore({
    client: db.client,
    tableName: db.tableName,
    onSkippedTurn: (details) => skipped.push(details),
  });
}

async function transcriptKeys(conversationId: string): Promise<string[]> {
  const page = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :t)',
      ExpressionAttributeValues: { ':pk': { S: `CONV#${conversationId}` }, ':t': { S: 'TRANSCRIPT#' } },
    }),
  );
  return (page.Items ?? []).map((item) => String(item.sk?.S));
}

const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('DynamoTranscriptStore', () => {
  it('reloads the saved turns of a session in turn order', async () => {
    const id = await conversation();
    const store = transcripts();
    await store.save(id, 'session-a', 2, [user('turn 2'), assistant('answer 2')]);
    await store.save(id, 'session-a', 1, [user('turn 1'), assistant('answer 1')]);
    await store.save(id, 'session-b', 1, [user('another session')]);

    expect(await store.load(id, 'session-a')).toEqual([
      user('turn 1'),
      assistant('answer 1'),
      user('turn 2'),
      assistant('answer 2'),
    ]);
    expect(await store.load(id, 'session-a', { beforeTurn: 2 })).toEqual([
      user('turn 1'),
      assistant('answer 1'),
    ]);
  });

  it('splits a turn larger than the 400 KB item limit into chunks and reads it back whole', async () => {
    const id = await conversation();
    const store = transcripts();
    // Random text does not compress much: the stored turn stays well above one item.
    const big = randomBytes(700_000).toString('base64');
    const messages = [
      user('read the logs'),
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: big }],
      } as MessageParam,
    ];

    await store.save(id, 'session-a', 1, messages);

    const keys = await transcriptKeys(id);
    expect(keys.length).toBeGreaterThanOrEqual(Math.ceil((big.length * 0.7) / TRANSCRIPT_CHUNK_BYTES));
    expect(keys).toContain('TRANSCRIPT#session-a#000001#0000');
    expect(await store.load(id, 'session-a')).toEqual(messages);
  });

  it('replaces a turn saved again by a retried turn, even when the new save has fewer chunks', async () => {
    const id = await conversation();
    const store = transcripts();
    await store.save(id, 'session-a', 1, [user(randomBytes(700_000).toString('base64'))]);

    await store.save(id, 'session-a', 1, [user('the retry')]);

    expect(await store.load(id, 'session-a')).toEqual([user('the retry')]);
  });

  it('skips a turn whose save did not finish, and says so', async () => {
    const id = await conversation();
    const skipped: unknown[] = [];
    const store = transcripts(skipped);
    await store.save(id, 'session-a', 1, [user('turn 1')]);
    await store.save(id, 'session-a', 2, [user(randomBytes(700_000).toString('base64'))]);
    // A save that died before its last write (chunk 0 comes last).
    await db.client.send(
      new DeleteItemCommand({
        TableName: db.tableName,
        Key: { pk: { S: `CONV#${id}` }, sk: { S: 'TRANSCRIPT#session-a#000002#0000' } },
      }),
    );

    expect(await store.load(id, 'session-a')).toEqual([user('turn 1')]);
    expect(skipped).toEqual([
      { conversationId: id, sessionId: 'session-a', turn: 2, reason: 'incomplete write' },
    ]);
  });

  it('names the session on the conversation item', async () => {
    const id = await conversation();

    await transcripts().save(id, 'session-a', 1, [user('turn 1')]);

    expect((await store.getConversation(id, { consistent: true }))?.sessionId).toBe('session-a');
  });
});

describe('agent turns over DynamoDB', () => {
  it('resumes the session from DynamoDB and adds every call to the conversation ledger', async () => {
    const id = await conversation();
    const steps: ScriptStep[] = [
      withUsage(toolUse('get_bug_conversations', { bug_id: id }), { input_tokens: 900, output_tokens: 40 }),
      withUsage(
        submit({ ...validFindings, action: 'ask_reporter', clarification_question: 'Which version?' }),
        { input_tokens: 100, output_tokens: 90, cache_read_input_tokens: 900 },
      ),
      (request) => {
        expect(request.body.messages).toHaveLength(5);
        expect(lastUserText(request.body)).toContain(
          '"from":"U_REPORTER","role":"reporter","verified":true,"text":"2.3.1 on Android',
        );
        return withUsage(submit(validFindings), {
          input_tokens: 50,
          output_tokens: 100,
          cache_read_input_tokens: 1_500,
        });
      },
    ];
    model = await startScriptedModel({ steps });
    const deps = turnDeps(model.baseUrl, {
      transcripts: transcripts(),
      tools: fakeTools({ get_bug_conversations: () => 'history' }).invoker,
      ledger: (conversationId, delta) => store.addToLedger(conversationId, delta),
    });

    const first = await runAgentTurn(turnInput({ conversationId: id }), deps);
    const second = await runAgentTurn(
      turnInput({
        conversationId: id,
        turn: 2,
        mode: 'continuation',
        state: 'awaiting_reporter',
        sessionId: first.sessionId,
        messages: [drained('reporter', 'U_REPORTER', '2.3.1 on Android', '1732190200.000100')],
      }),
      deps,
    );

    expect([first.action, second.action]).toEqual(['ask_reporter', 'post_findings']);
    const stored = await store.getConversation(id, { consistent: true });
    expect(stored?.ledger).toMatchObject({ inputTokens: 1_050, outputTokens: 230, cacheReadTokens: 2_400 });
    expect(stored?.sessionId).toBe(first.sessionId);
  });
});
