import { createServer, type Server } from 'node:http';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpConnector } from '../../lambdas/adapters/mcp-client.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { fakeValues } from '../redaction/fake-values.ts';
import { submit, toolUse } from '../support/scripted-model.ts';
import { fakeTools, turnDeps, turnInput, useScriptedModel, validFindings } from './support.ts';

const scripted = useScriptedModel();
const { githubToken, dbPassword } = fakeValues();
const database = `postgres://admin:${dbPassword}@db.internal:5432/orders`;

/** An MCP server that fails every request with an error body naming a credential. */
let mcp: Server;
let mcpUrl: string;
beforeAll(async () => {
  mcp = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`upstream failed: ${database} token=${githubToken}`);
    });
  });
  await new Promise<void>((resolve) => mcp.listen(0, '127.0.0.1', resolve));
  mcpUrl = `http://127.0.0.1:${(mcp.address() as { port: number }).port}/mcp`;
});
afterAll(() => new Promise((resolve) => mcp.close(resolve)));

describe("a failed tool call's log line", () => {
  it("holds the MCP server's error body redacted: its message, stack and cause, with the error's name and fields kept", async () => {
    // A tool of the turn's profile, served here by an MCP server's `query` tool.
    const server = await scripted([
      toolUse('get_bug_conversations', { sql: 'select 1' }),
      submit(validFindings),
    ]);
    const connector = createMcpConnector();
    const tools = fakeTools({
      get_bug_conversations: async (args) => {
        const endpoint = { name: 'db', url: mcpUrl, headers: {}, timeoutMs: 5_000 };
        return (await connector.callTool(endpoint, 'query', args as Record<string, unknown>)).text;
      },
    });
    // Powertools' logger writes to the console in dev mode (POWERTOOLS_DEV): what it prints is what is kept.
    const logger = new Logger({ serviceName: 'agent-turn', logLevel: 'ERROR' });
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let lines: string[];
    try {
      await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { tools: tools.invoker, logger }));
      lines = printed.mock.calls.map((call) => String(call[0]));
    } finally {
      printed.mockRestore();
    }

    const line = lines.find((text) => text.includes('tool call failed'));
    expect(line).toBeDefined();
    const logged = JSON.parse(line ?? '{}') as {
      error: Record<string, unknown> & { cause: Record<string, unknown> };
    };
    expect(logged.error).toMatchObject({ name: 'McpServerError', server: 'db' });
    expect(logged.error.message).toMatch(
      /upstream failed: <secret:connection-string#[0-9a-f]{4}> token=<secret:github-token#[0-9a-f]{4}>/,
    );
    expect(JSON.stringify(logged.error.stack)).toContain('<secret:github-token#');
    expect(JSON.stringify(logged.error.cause)).toContain('<secret:connection-string#');
    expect(line).not.toContain(githubToken);
    expect(line).not.toContain(dbPassword);
  });
});
