import { createMcpConnector } from '../../lambdas/adapters/mcp-client.ts';
import { mcpHeaders } from '../../lambdas/adapters/mcp-headers.ts';
import type { McpSettings } from '../../lambdas/mcp/config.ts';
import { guardOf, offered } from '../../lambdas/mcp/policy.ts';
import type { McpConnector } from '../../lambdas/mcp/ports.ts';

/**
 * The preflight's MCP part (docs/mcp.md): each configured server is listed as an agent turn
 * lists it (its headers secret read with the deploying credentials), and its tools reported:
 * those offered, which of them wait for an approval, and those the configuration keeps out.
 */
export async function checkMcp(
  mcp: McpSettings,
  report: { problems: string[]; passed: string[] },
  deps: {
    connector?: McpConnector;
    headersOf?: (server: McpSettings['servers'][number]) => Promise<Record<string, string>>;
  } = {},
): Promise<void> {
  const connector = deps.connector ?? createMcpConnector();
  const headersOf = deps.headersOf ?? mcpHeaders;
  for (const server of mcp.servers) {
    try {
      const headers = await headersOf(server);
      const tools = await connector.listTools({
        name: server.name,
        url: server.url,
        headers,
        timeoutMs: server.timeoutSeconds * 1000,
      });
      const shown = tools.filter((tool) => offered(server, tool));
      const guarded = shown.filter((tool) => guardOf(server, tool) === 'approve').map((tool) => tool.name);
      const free = shown.filter((tool) => guardOf(server, tool) === 'allow').map((tool) => tool.name);
      const out = tools.filter((tool) => !offered(server, tool)).map((tool) => tool.name);
      report.passed.push(
        `MCP server ${server.name}: ${tools.length} tools; run without approval: ${list(free)}; ` +
          `wait for an approval: ${list(guarded)}; not offered: ${list(out)}`,
      );
    } catch (error) {
      report.problems.push(
        `MCP server ${server.name} (${server.url}): ${error instanceof Error ? error.message : String(error)}: check the URL, that the server is up, and its headersSecret`,
      );
    }
  }
}

function list(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.join(', ');
}
