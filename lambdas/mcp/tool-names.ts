/**
 * How an MCP server's tool is named to the model. Apart from the settings' schemas, so the
 * code that only reads a tool's name (progress titles, the tool router) loads no schema.
 */

/** The tool name the model sees for a server's tool. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** The server and tool of a name `mcpToolName` made; undefined for another tool. */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  const match = /^mcp__([a-z][a-z0-9-]*(?:_[a-z0-9-]+)*)__(.+)$/.exec(name);
  return match?.[1] && match[2] ? { server: match[1], tool: match[2] } : undefined;
}
