/** Where the sandbox serves the history MCP server's Function URL (history-endpoint.ts); the template's URL attribute names it too. */
export const SANDBOX_HISTORY_MCP_PATH = '/sandbox/mcp/history';
