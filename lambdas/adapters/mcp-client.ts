import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServerError } from '../mcp/errors.ts';
import type { McpCallResult, McpConnector, McpEndpoint, McpListedTool } from '../mcp/ports.ts';

/**
 * The MCP client over Streamable HTTP with the official SDK: one session per request (the
 * initialize handshake, then `tools/list` or `tools/call`, then close), so a Lambda that dies
 * between two calls leaves nothing behind. Every step is bounded by the server's timeout (the
 * transport is closed when it runs out) and every HTTP answer by `MAX_RESPONSE_BYTES`; each
 * failure is an `McpServerError` naming the server, with the SDK's error as its cause.
 */

/** Bytes of one HTTP answer read from a server: past it the answer is dropped as an error. */
export const MAX_RESPONSE_BYTES = 1_000_000;

const CLIENT_INFO = { name: 'slack-agents', version: '1.0.0' };

export function createMcpConnector(options: { maxResponseBytes?: number } = {}): McpConnector {
  const limit = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  return {
    listTools: (server) =>
      withSession(server, limit, 'listing its tools', async (client, request) => {
        const tools: McpListedTool[] = [];
        let cursor: string | undefined;
        // Paged by the server; bounded so a server cannot page forever.
        for (let page = 0; page < 20; page += 1) {
          const listed = await client.listTools(cursor === undefined ? {} : { cursor }, request);
          for (const tool of listed.tools)
            tools.push({
              name: tool.name,
              description: tool.description,
              inputSchema: tool.inputSchema as Record<string, unknown>,
              annotations: tool.annotations,
            });
          cursor = listed.nextCursor;
          if (cursor === undefined) break;
        }
        return tools;
      }),
    callTool: (server, tool, args) =>
      withSession(server, limit, `calling ${tool}`, async (client, request) => {
        const result = await client.callTool({ name: tool, arguments: args }, undefined, request);
        return textOf(result);
      }),
  };
}

async function withSession<T>(
  server: McpEndpoint,
  limit: number,
  what: string,
  run: (client: Client, request: { signal: AbortSignal; timeout: number }) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new McpServerError(server.name, `did not answer within ${server.timeoutMs} ms`)),
    server.timeoutMs,
  );
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.headers },
    fetch: cappedFetch(limit, controller.signal),
  });
  const client = new Client(CLIENT_INFO);
  const request = { signal: controller.signal, timeout: server.timeoutMs };
  try {
    await client.connect(transport, request);
    return await run(client, request);
  } catch (error) {
    const cause = controller.signal.aborted ? controller.signal.reason : error;
    if (cause instanceof McpServerError) throw cause;
    throw new McpServerError(server.name, `failed ${what}: ${messageOf(cause)}`, { cause });
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

/** `fetch` bound to the session's abort signal, reading at most `limit` bytes of each answer. */
function cappedFetch(limit: number, signal: AbortSignal) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
    });
    if (response.body === null) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, stream) {
          seen += chunk.byteLength;
          if (seen > limit) stream.error(new Error(`the answer is larger than ${limit} bytes`));
          else stream.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function textOf(result: unknown): McpCallResult {
  const { content, isError, structuredContent } = result as {
    content?: { type: string; text?: string; mimeType?: string }[];
    isError?: boolean;
    structuredContent?: unknown;
  };
  const parts = (content ?? []).map((block) =>
    block.type === 'text' && typeof block.text === 'string'
      ? block.text
      : `[${block.type} content${block.mimeType ? ` (${block.mimeType})` : ''} not shown]`,
  );
  if (parts.length === 0 && structuredContent !== undefined) parts.push(JSON.stringify(structuredContent));
  return { text: parts.join('\n'), isError: isError === true };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
