import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { StoredMessage } from '../../lambdas/kernel/model.ts';
import { SANDBOX_HISTORY_MCP_PATH } from '../../local/mcp/history-endpoint.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { LOCAL_REGION } from '../../local/template.ts';
import { bugConversation } from '../support/conversations.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { signingFetch } from '../support/signing-fetch.ts';

/** The history MCP server's one tool, as clients call it (stated here, not imported: the value is what this test checks). */
const HISTORY_MCP_TOOL = 'get_conversation_history';

/** The secret key of every sandbox principal (stated here, not imported: the value is what this test checks). */
const SANDBOX_SECRET_ACCESS_KEY = 'sandbox';

/**
 * The conversation history as a read-only MCP server, served by the sandbox as its Function URL
 * with IAM auth would serve it: requests signed with SigV4 by one of the sandbox's access keys
 * (local/mcp/history-endpoint.ts), the caller taken from the key, read by the SDK's own client.
 * The sandbox's configuration lets the role `sandbox-incident-reader` read incident conversations.
 */

const READER = 'sandbox-incident-reader';
const STRANGER = 'sandbox-stranger';
const INCIDENT = 'inc-history-1';
const BUG = 'bug-history-1';

let sandbox: Sandbox;
let url: URL;
beforeAll(async () => {
  sandbox = await workerSandbox({ logLevel: 'SILENT' });
  url = new URL(`${sandbox.url}${SANDBOX_HISTORY_MCP_PATH}`);
  const store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
  await store.createConversation(bugConversation(INCIDENT, { workflow: 'incident_investigation' }));
  await store.createConversation(bugConversation(BUG));
  for (const stored of [
    message(INCIDENT, '1732190000.000100', 'U_RESPONDER', 'checkout returns 502 since 09:10'),
    message(INCIDENT, '1732190060.000200', 'U_BOT', 'H1: the payment provider timeout was lowered'),
    message(BUG, '1732190000.000300', 'U_REPORTER', 'the cart forgets its items'),
  ])
    await store.putMessage(stored);
});
afterAll(async () => sandbox?.stop());

function message(conversationId: string, ts: string, senderId: string, text: string): StoredMessage {
  return {
    conversationId,
    ts,
    channel: 'C_INCIDENTS',
    threadTs: `${conversationId}-root`,
    senderType: senderId === 'U_BOT' ? 'bot' : 'reporter',
    senderId,
    messageType: 'message',
    text,
    receivedAt: new Date(Number(ts) * 1000).toISOString(),
  };
}

async function clientSigningAs(
  accessKeyId: string,
  secretAccessKey = SANDBOX_SECRET_ACCESS_KEY,
): Promise<Client> {
  const client = new Client({ name: 'history-mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      fetch: signingFetch({ accessKeyId, secretAccessKey }, LOCAL_REGION),
    }),
  );
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('\n');

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the history MCP server in the sandbox', () => {
  it('lists one read-only tool, annotated as such', async () => {
    const client = await clientSigningAs(READER);
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((tool) => [tool.name, tool.title, tool.annotations])).toEqual([
      [
        HISTORY_MCP_TOOL,
        'Conversation history',
        {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
      ],
    ]);
  });

  it("reads the history of a conversation of a workflow the caller's role may read", async () => {
    const client = await clientSigningAs(READER);
    const result = await client.callTool({
      name: HISTORY_MCP_TOOL,
      arguments: { conversation_id: INCIDENT },
    });
    await client.close();
    expect(result.isError).toBeFalsy();
    expect(textOf(result).split('\n')).toEqual([
      '--- 2024-11-21 ---',
      expect.stringMatching(/^\[11:53:20\] .*"text":"checkout returns 502 since 09:10"/),
      expect.stringMatching(
        /^\[11:54:20\] .*"role":"bot".*"text":"H1: the payment provider timeout was lowered"/,
      ),
    ]);
  });

  it('refuses a conversation of another workflow with the answer a missing one gets', async () => {
    const client = await clientSigningAs(READER);
    const other = await client.callTool({ name: HISTORY_MCP_TOOL, arguments: { conversation_id: BUG } });
    const missing = await client.callTool({
      name: HISTORY_MCP_TOOL,
      arguments: { conversation_id: 'bug-none' },
    });
    await client.close();
    expect(other.isError).toBe(true);
    expect(textOf(other)).toMatch(/^You may not read conversation "bug-history-1"/);
    expect(textOf(other)).not.toContain('cart');
    expect(textOf(missing).replace('bug-none', 'bug-history-1')).toBe(textOf(other));
  });

  it('refuses an unsigned request and one signed with the wrong secret, as Lambda does', async () => {
    const unsigned = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toEqual({ Message: 'Missing Authentication Token' });
    const wrong = await signingFetch(
      { accessKeyId: READER, secretAccessKey: 'not-the-secret' },
      LOCAL_REGION,
    )(url, {
      method: 'POST',
      headers: mcpHeaders,
      body: initialize,
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ Message: expect.stringMatching(/signature .* does not match/) });
  });

  it('refuses a correctly signed caller that no reader entry names', async () => {
    const response = await signingFetch(
      { accessKeyId: STRANGER, secretAccessKey: SANDBOX_SECRET_ACCESS_KEY },
      LOCAL_REGION,
    )(url, { method: 'POST', headers: mcpHeaders, body: initialize });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      error: {
        message: expect.stringContaining('user/sandbox-stranger may not read conversation histories'),
      },
    });
    await expect(clientSigningAs(STRANGER)).rejects.toThrow(
      /sandbox-stranger may not read conversation histories/,
    );
  });
});
