import type { McpApproval, McpServerSettings } from './config.ts';
import type { McpListedTool } from './ports.ts';

/**
 * How a listed tool is guarded. The installation's per-tool setting decides; without one, a
 * tool the server annotates `readOnlyHint: true` (and not `destructiveHint`) runs, and every
 * other one waits for an approval. Annotations are the server's claims, so they can only make
 * a tool stricter than the configuration says, never looser: a configured `allow` stands, but
 * nothing the server says turns an `approve` or `refuse` into `allow`.
 */
export function guardOf(server: McpServerSettings, tool: McpListedTool): McpApproval {
  const configured = Object.hasOwn(server.approval, tool.name) ? server.approval[tool.name] : undefined;
  if (configured !== undefined) return configured;
  const hints = tool.annotations;
  return hints?.readOnlyHint === true && hints.destructiveHint !== true ? 'allow' : 'approve';
}

/** Whether the configuration offers the tool at all (`tools.allow`, `tools.deny`, a `refuse`). */
export function offered(server: McpServerSettings, tool: McpListedTool): boolean {
  const { allow, deny } = server.tools;
  if (allow.length > 0 && !allow.includes(tool.name)) return false;
  if (deny.includes(tool.name)) return false;
  return guardOf(server, tool) !== 'refuse';
}
