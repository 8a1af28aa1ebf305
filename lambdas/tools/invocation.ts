import * as z from 'zod';

/**
 * The contract between an agent and its tool Lambdas: AgentTurn invokes a tool's function
 * with a `ToolInvocation` and gets a `ToolResult` back (lambda-tool-invoker.ts). Arguments
 * the model got wrong are a result (`ok: false`, shown to the model so it can correct
 * them), never a thrown error: a tool Lambda throws only when the infrastructure failed.
 */

/**
 * What the state machine tells a turn's tools, never the model: the work branch a code tool
 * writes to (e.g. the bug workflow's `agents/bug-<short id>`), and a scope (e.g. an incident
 * hypothesis's) a tool keeps its results to. Absent fields fall back to the tool's own rule.
 */
export const ToolContext = z.strictObject({
  /** The branch code tools read and write; it must carry the configured prefix (the tools check). */
  workBranch: z.string().min(1).max(200).optional(),
  /** A tool-defined scope within the conversation, e.g. `hypothesis-2`. */
  scope: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, 'a scope is letters, digits, and . _ : - (at most 100)')
    .optional(),
});
export type ToolContext = z.infer<typeof ToolContext>;

export const ToolInvocation = z.object({
  /** The tool's name as offered to the model, e.g. `get_bug_conversations`. */
  tool: z.string().min(1),
  /** The arguments exactly as the model wrote them; the tool validates them. */
  args: z.unknown(),
  /** The conversation whose agent turn calls the tool (log context, ledger, access scope). */
  conversationId: z.string().min(1),
  /** From the state machine through the agent turn (`AgentTurnInput.toolContext`). */
  context: ToolContext.optional(),
});
export type ToolInvocation = z.infer<typeof ToolInvocation>;

export const ToolResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), output: z.string() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type ToolResult = z.infer<typeof ToolResult>;

/** What the model is told about a tool: sent as an entry of the Messages API `tools`. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12) of the arguments, an object schema. */
  inputSchema: Record<string, unknown>;
}

/** A tool's JSON Schema from its zod schema (one source of truth), without the `$schema` key the model does not need. */
export function toInputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(schema, { io: 'input' });
  return inputSchema;
}

/** A clear, model-readable text for arguments that do not match a tool's schema. */
export function invalidArgumentsMessage(tool: string, error: z.ZodError): string {
  return `Invalid arguments for ${tool}:\n${z.prettifyError(error)}`;
}
