/** Errors of the MCP toolsets (docs/mcp.md); each names the server and carries its cause. */

/** A server could not be reached, answered an error, or took longer than its timeout. */
export class McpServerError extends Error {
  override readonly name = 'McpServerError';
  constructor(
    readonly server: string,
    readonly what: string,
    options: { cause?: unknown } = {},
  ) {
    super(`MCP server "${server}" ${what}`, options);
  }
}

/** `MCP_SERVERS` is not valid JSON settings: the function stops instead of running without its guards. */
export class InvalidMcpSettingsError extends Error {
  override readonly name = 'InvalidMcpSettingsError';
  constructor(variable: string, options: { cause?: unknown } = {}) {
    super(`${variable} does not hold valid MCP settings (docs/mcp.md)`, options);
  }
}

/** A server's `headersSecret` does not hold a JSON object of strings. */
export class InvalidMcpHeadersError extends Error {
  override readonly name = 'InvalidMcpHeadersError';
  constructor(
    readonly server: string,
    readonly secret: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      `secret ${secret} of MCP server "${server}" does not hold a JSON object of header strings`,
      options,
    );
  }
}

/** A call the platform did not make: over the budget, rejected, expired, or not offered. */
export class McpCallRefusedError extends Error {
  override readonly name = 'McpCallRefusedError';
  constructor(
    readonly tool: string,
    readonly reason: string,
  ) {
    super(`Not run: ${tool}: ${reason}`);
  }
}
