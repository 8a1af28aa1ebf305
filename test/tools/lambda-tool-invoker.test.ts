import { LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { createLambdaToolInvoker } from '../../lambdas/adapters/lambda-tool-invoker.ts';
import { handler as conversationHistoryHandler } from '../../lambdas/handlers/conversation-history-tool.ts';
import {
  InvalidToolConfigurationError,
  ToolFailedError,
  UnknownToolError,
} from '../../lambdas/tools/errors.ts';
import { LambdaFunctionNotFoundError } from '../../local/lambda/errors.ts';
import { startDynalite } from '../support/dynalite.ts';
import { type LambdaApiServer, listenLambdaApi } from '../support/lambda-api-server.ts';

/** How a failed tool call's output begins for the model (stated here, not imported: the value is what this test checks). */
const TOOL_ERROR_PREFIX = 'Tool error: ';

// AgentTurn's view of its tools: the real SDK, configured from the environment as in the
// sandbox (AWS_ENDPOINT_URL_LAMBDA, TOOL_FUNCTIONS), through the Invoke emulator into the
// real ConversationHistoryTool handler reading dynalite.

class UpstreamDownError extends Error {
  override readonly name = 'UpstreamDownError';
}

const FUNCTIONS: Record<string, (event: unknown) => Promise<unknown>> = {
  ConversationHistoryTool: (event) => conversationHistoryHandler(event),
  FlakyTool: async () => {
    throw new UpstreamDownError('GitHub answered 503');
  },
  ConfusedTool: async () => ({ answer: 42 }),
  // Answers with what it was invoked with, as a code tool would read it.
  EchoTool: async (event) => ({ ok: true, output: JSON.stringify(event) }),
};

let db: Awaited<ReturnType<typeof startDynalite>>;
let api: LambdaApiServer;
const conversationId = 'bug-C_BUGS-1732190000_000100';

beforeAll(async () => {
  db = await startDynalite();
  api = await listenLambdaApi(async (name, payload) => {
    const fn = FUNCTIONS[name];
    if (!fn) throw new LambdaFunctionNotFoundError(name);
    return fn(payload);
  });
  Object.assign(process.env, {
    TABLE_NAME: db.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_ENDPOINT_URL_LAMBDA: api.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    TOOL_FUNCTIONS: JSON.stringify({
      get_bug_conversations: 'ConversationHistoryTool',
      flaky_tool: 'arn:aws:lambda:us-east-1:000000000000:function:FlakyTool',
      confused_tool: 'ConfusedTool',
      ghost_tool: 'GhostTool',
      echo_tool: 'EchoTool',
    }),
  });
  const store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  await store.putMessage({
    conversationId,
    ts: '1732190000.000100',
    channel: 'C_BUGS',
    senderType: 'reporter',
    senderId: 'U_REPORTER',
    messageType: 'message',
    text: 'checkout fails with a 500',
    receivedAt: '2024-11-21T11:53:20Z',
  });
});

afterAll(async () => {
  await api.close();
  await db.close();
});

describe('the Lambda tool invoker', () => {
  it('invokes the tool function named in TOOL_FUNCTIONS and returns its output', async () => {
    const tools = createLambdaToolInvoker();

    const output = await tools.invoke(
      'get_bug_conversations',
      { bug_id: conversationId },
      { conversationId },
    );

    expect(output).toBe(
      '--- 2024-11-21 ---\n[11:53:20] {"from":"U_REPORTER","role":"reporter","verified":true,"text":"checkout fails with a 500","id":"1732190000.000100"}',
    );
  });

  it("passes the turn's tool context to the tool function as `context`, and none when the turn has none", async () => {
    const tools = createLambdaToolInvoker();

    const given = await tools.invoke(
      'echo_tool',
      { path: 'a' },
      { conversationId, toolContext: { workBranch: 'agents/bug-0123abcd4567', scope: 'hypothesis-2' } },
    );
    const none = await tools.invoke('echo_tool', { path: 'a' }, { conversationId });

    expect(JSON.parse(given)).toEqual({
      tool: 'echo_tool',
      args: { path: 'a' },
      conversationId,
      context: { workBranch: 'agents/bug-0123abcd4567', scope: 'hypothesis-2' },
    });
    expect(JSON.parse(none)).toEqual({ tool: 'echo_tool', args: { path: 'a' }, conversationId });
  });

  it('returns a tool-error text the model can act on when its arguments are wrong', async () => {
    const tools = createLambdaToolInvoker();

    const output = await tools.invoke(
      'get_bug_conversations',
      { bug_id: conversationId, max_chars: 5 },
      {
        conversationId,
      },
    );

    expect(output.startsWith(`${TOOL_ERROR_PREFIX}Invalid arguments for get_bug_conversations:`)).toBe(true);
    expect(output).toContain('max_chars');
  });

  it('throws UnknownToolError for a tool with no function configured', async () => {
    const tools = createLambdaToolInvoker();

    const error = await tools.invoke('delete_repository', {}, { conversationId }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UnknownToolError);
    expect((error as Error).name).toBe('UnknownToolError');
    expect((error as Error).message).toContain('get_bug_conversations');
  });

  it('throws ToolFailedError with the function error when the tool function throws', async () => {
    const tools = createLambdaToolInvoker();

    const error = await tools.invoke('flaky_tool', {}, { conversationId }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ToolFailedError);
    expect(error).toMatchObject({
      name: 'ToolFailedError',
      tool: 'flaky_tool',
      errorType: 'UpstreamDownError',
      message: 'tool flaky_tool failed: GitHub answered 503',
    });
  });

  it('throws ToolFailedError when the function answers something that is not a tool result', async () => {
    const tools = createLambdaToolInvoker();

    await expect(tools.invoke('confused_tool', {}, { conversationId })).rejects.toMatchObject({
      name: 'ToolFailedError',
      message: 'tool confused_tool failed: its function answered something that is not a tool result',
    });
  });

  it('lets the SDK error through when the configured function does not exist', async () => {
    const tools = createLambdaToolInvoker();

    await expect(tools.invoke('ghost_tool', {}, { conversationId })).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('takes the function map and client it is given instead of the environment', async () => {
    const client = new LambdaClient({ endpoint: api.endpoint });
    const tools = createLambdaToolInvoker({
      client,
      functions: { get_bug_conversations: 'ConversationHistoryTool' },
    });

    try {
      expect(tools.tools()).toEqual(['get_bug_conversations']);
      const output = await tools.invoke(
        'get_bug_conversations',
        { bug_id: 'bug-empty' },
        { conversationId: 'bug-empty' },
      );
      expect(output).toBe('No conversation history found for bug-empty.');
    } finally {
      client.destroy();
    }
  });

  it('fails with InvalidToolConfigurationError when TOOL_FUNCTIONS is not a JSON object of names', async () => {
    const saved = process.env.TOOL_FUNCTIONS;
    process.env.TOOL_FUNCTIONS = '["get_bug_conversations"]';
    try {
      const tools = createLambdaToolInvoker();

      await expect(tools.invoke('get_bug_conversations', {}, { conversationId })).rejects.toBeInstanceOf(
        InvalidToolConfigurationError,
      );
    } finally {
      process.env.TOOL_FUNCTIONS = saved;
    }
  });
});
