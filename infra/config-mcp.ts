import * as z from 'zod';
import { MCP_DECISION, McpSettings } from '../lambdas/mcp/config.ts';

/** The configuration of the MCP toolsets (docs/mcp.md), spread into the kernel's fields. */
export const McpConfigFields = {
  /**
   * MCP servers as toolsets of the agents (docs/mcp.md): `servers` (each `name`, `url` of its
   * Streamable HTTP endpoint, `headersSecret`, `tools` `allow`/`deny`, `workflows`, `approval`
   * per tool `approve | allow | refuse`, `timeoutSeconds`, `maxResultChars`),
   * `maxCallsPerConversation` and `approvalSeconds`; `historyServer` (`enabled`, `readers` each
   * `principal` and `workflows`) serves the conversation history to people's own assistants.
   * @default { servers: [], maxCallsPerConversation: 50, approvalSeconds: 300, historyServer: { enabled: false, readers: [] } }
   */
  mcp: McpSettings.prefault({}),
};

/** Decision kinds of the kernel's own, with the roles that may decide them by default. */
export const KERNEL_DECISIONS: Record<string, z.ZodType> = {
  /** An MCP call that waits for an approval: by default the people who approve remediation steps. */
  [MCP_DECISION]: z.array(z.string()).min(1).default(['incident_approver']),
};

/**
 * What synth refuses of the MCP settings: a workflow no module runs, and outside the sandbox
 * a plain `http://` server or approvers nobody holds.
 */
export function mcpProblems(
  config: {
    sandbox?: boolean;
    mcp: McpSettings;
    approvals: Readonly<Record<string, readonly string[] | undefined>>;
    people: Readonly<Record<string, { groups: readonly string[]; users: readonly string[] } | undefined>>;
  },
  workflows: readonly string[],
): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  config.mcp.servers.forEach((server, index) => {
    server.workflows.forEach((workflow, at) => {
      if (!workflows.includes(workflow))
        problems.push({
          path: `mcp.servers.${index}.workflows.${at}`,
          message: `"${workflow}" is not a workflow here; expected one of ${workflows.join(', ')}`,
        });
    });
    if (config.sandbox !== true && new URL(server.url).protocol !== 'https:')
      problems.push({
        path: `mcp.servers.${index}.url`,
        message: 'expected https:// outside the sandbox (headers carry credentials)',
      });
  });
  problems.push(...historyServerProblems(config.mcp.historyServer, workflows));
  if (config.sandbox === true || config.mcp.servers.length === 0) return problems;
  for (const role of config.approvals[MCP_DECISION] ?? []) {
    const members = config.people[role];
    if (members === undefined || members.groups.length + members.users.length === 0)
      problems.push({
        path: `approvals.${MCP_DECISION}`,
        message: `role "${role}" has nobody in people: MCP calls that wait for an approval could never be approved`,
      });
  }
  return problems;
}

/** An enabled history server must have readers, and each reader's workflows must exist. */
function historyServerProblems(
  settings: McpSettings['historyServer'],
  workflows: readonly string[],
): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  if (settings.enabled && settings.readers.length === 0)
    problems.push({
      path: 'mcp.historyServer.readers',
      message: 'the history server is enabled but nobody may read: name at least one reader',
    });
  settings.readers.forEach((reader, index) => {
    reader.workflows.forEach((workflow, at) => {
      if (!workflows.includes(workflow))
        problems.push({
          path: `mcp.historyServer.readers.${index}.workflows.${at}`,
          message: `"${workflow}" is not a workflow here; expected one of ${workflows.join(', ')}`,
        });
    });
  });
  return problems;
}
