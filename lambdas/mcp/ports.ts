/**
 * The MCP toolsets' seams: a client of one server (the official SDK over Streamable HTTP in
 * lambdas/adapters/mcp-client.ts; tests may drive a real SDK server or a fake), the call
 * budget, and the approval of a guarded call. The domain code here imports no SDK.
 */

/** A tool as its server lists it (the MCP `Tool` fields the platform reads). */
export interface McpListedTool {
  name: string;
  description?: string | undefined;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  annotations?:
    | {
        readOnlyHint?: boolean | undefined;
        destructiveHint?: boolean | undefined;
        idempotentHint?: boolean | undefined;
        openWorldHint?: boolean | undefined;
        title?: string | undefined;
      }
    | undefined;
}

/** A call's answer as text blocks (other content kinds are named, not passed), and whether the tool reported an error. */
export interface McpCallResult {
  text: string;
  isError: boolean;
}

/** Opens a session with a server, lists its tools and calls them; each request bounded by `timeoutMs`. */
export interface McpConnector {
  listTools(server: McpEndpoint): Promise<McpListedTool[]>;
  callTool(server: McpEndpoint, tool: string, args: Record<string, unknown>): Promise<McpCallResult>;
}

/** What a connection needs: the server's name (for errors), URL, headers and timeout. */
export interface McpEndpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * The conversation's MCP call budget: `take` counts one call if the conversation made fewer
 * than `max` (one conditional update, so concurrent turns cannot pass it); `false` when spent.
 */
export interface McpCallBudget {
  take(conversationId: string, max: number): Promise<boolean>;
}

/** A guarded call shown to approvers: the exact server, tool and arguments. */
export interface McpApprovalRequest {
  conversationId: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** How long the approval stays open. */
  expiresInMs: number;
}

/** How an approval ended: an authorized press (who, when), or no decision before it expired. */
export type McpApprovalOutcome =
  | { outcome: 'approved' | 'rejected'; by: string; at: string }
  | { outcome: 'expired'; at: string }
  | { outcome: 'unavailable'; reason: string };

/** Posts the approval in the conversation's thread and waits for its decision or expiry. */
export interface McpApprovals {
  request(request: McpApprovalRequest): Promise<McpApprovalOutcome>;
}
