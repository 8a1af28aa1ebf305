import * as z from 'zod';
import { HistoryServerSettings } from '../history-mcp/config.ts';
import { ENV } from '../shared/env.ts';

/**
 * MCP servers as toolsets (docs/mcp.md): which servers the agents may call, over Streamable
 * HTTP, which of their tools, for which workflows, and how each tool is guarded. The stack
 * validates this at synth and hands it to every function as `MCP_SERVERS` (JSON).
 */

/** The variable the stack sets: the JSON `McpSettings`. */
export const MCP_ENV = ENV.mcp;

/** The decision kind of an MCP call's Approve / Reject buttons (`slackAgents.approvals`). */
export const MCP_DECISION = 'mcp_tool_call';

/** How a tool is guarded: `approve` waits for an approver's press, `allow` runs, `refuse` is never offered. */
export const McpApproval = z.enum(['approve', 'allow', 'refuse']);
export type McpApproval = z.infer<typeof McpApproval>;

/**
 * A server's name is part of the tool names the model sees (`mcp__<server>__<tool>`), whose
 * characters the Messages API limits; `__` is the separator, so a name never holds two `_` in a row.
 */
const ServerName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]*(?:_[a-z0-9-]+)*$/,
    'expected a server name: lower-case letters, digits, - and single _ (e.g. inventory, grafana-prod)',
  )
  .max(30);

/** A tool's name as its server lists it (the MCP spec allows letters, digits, `_ - .` and `/`). */
const ToolName = z.string().regex(/^[A-Za-z0-9_./-]{1,128}$/, 'expected a tool name as the server lists it');

export const McpServerSettings = z
  .strictObject({
    /** The server's name, in its tools' names (`mcp__<name>__<tool>`) and in the approval messages. */
    name: ServerName,
    /** The server's Streamable HTTP endpoint (`https://`; `http://` only in the sandbox). */
    url: z.url({ protocol: /^https?$/ }),
    /**
     * A Secrets Manager secret (its name or ARN) holding the request headers as a JSON object
     * of strings, e.g. `{ "Authorization": "Bearer ..." }`; the agent functions may read it.
     * @default - no headers
     */
    headersSecret: z.string().min(1).max(2048).optional(),
    /**
     * Which of the server's tools are offered: `allow` (empty: all of them) minus `deny`.
     * @default { allow: [], deny: [] }
     */
    tools: z
      .strictObject({
        allow: z.array(ToolName).default([]),
        deny: z.array(ToolName).default([]),
      })
      .prefault({}),
    /**
     * The workflows whose agents get the server's tools (`incident_investigation`...); empty: every workflow.
     * @default []
     */
    workflows: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a workflow name')).default([]),
    /**
     * Per tool, how it is guarded, over the default: `allow` for a tool the server annotates
     * `readOnlyHint: true` and not `destructiveHint`, `approve` for every other one.
     * @default {}
     */
    approval: z.record(ToolName, McpApproval).default({}),
    /**
     * Seconds one request to the server (connect, list, or call) may take; a slower one is a tool error.
     * @default 20
     */
    timeoutSeconds: z.number().int().min(1).max(120).default(20),
    /**
     * Characters of one tool result handed to the model; the rest is cut, saying so.
     * @default 8000
     */
    maxResultChars: z.number().int().min(200).max(20_000).default(8_000),
  })
  .superRefine((server, context) => {
    for (const tool of server.tools.deny.filter((name) => server.tools.allow.includes(name)))
      context.addIssue({
        code: 'custom',
        path: ['tools', 'deny'],
        message: `"${tool}" is both allowed and denied`,
      });
  });
export type McpServerSettings = z.infer<typeof McpServerSettings>;

export const McpSettings = z
  .strictObject({
    /** The servers; empty: no MCP tools. @default [] */
    servers: z.array(McpServerSettings).max(20).default([]),
    /**
     * MCP calls one conversation may make in all (approved ones included), held by a
     * conditional counter on the conversation: a call over it is not made.
     * @default 50
     */
    maxCallsPerConversation: z.number().int().min(1).max(10_000).default(50),
    /**
     * Seconds an approval of an MCP call stays open; the turn waits that long at most, so it is
     * held below the turn's own time budget too. Unanswered: expired, the call not made.
     * @default 300
     */
    approvalSeconds: z.number().int().min(10).max(720).default(300),
    /**
     * The conversation history served as a read-only MCP server (a Function URL with IAM auth)
     * for people's own assistants: `enabled`, and `readers`, each an IAM role or user ARN or an
     * account id with the workflows whose conversations it may read.
     * @default { enabled: false, readers: [] }
     */
    historyServer: HistoryServerSettings.prefault({}),
  })
  .superRefine((settings, context) => {
    const seen = new Set<string>();
    settings.servers.forEach((server, index) => {
      if (seen.has(server.name))
        context.addIssue({
          code: 'custom',
          path: ['servers', index, 'name'],
          message: `"${server.name}" is configured twice`,
        });
      seen.add(server.name);
    });
  });
export type McpSettings = z.infer<typeof McpSettings>;

export const NO_MCP: McpSettings = McpSettings.parse({});

/** The servers a workflow's agents get. */
export function serversFor(settings: McpSettings, workflow: string): McpServerSettings[] {
  return settings.servers.filter((s) => s.workflows.length === 0 || s.workflows.includes(workflow));
}
