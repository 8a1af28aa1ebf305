import type { SandboxModule } from '../../statemachines/module-sandbox.ts';
import { SANDBOX_HISTORY_SERVER } from './history-endpoint.ts';

/**
 * The sandbox's MCP servers in its configuration (docs/mcp.md): the inventory server
 * (inventory-server.ts) for the incident investigation's agents, and the history server
 * (history-endpoint.ts) for the sandbox's reader role, unless the caller configures `mcp` itself. The configuration names it at a fixed origin, so the synthesized template does
 * not change with the port; the sandbox points that origin at itself in the functions'
 * environment, as it points the AWS SDKs at itself.
 */

/** The origin the sandbox's configuration names its MCP server at. */
const SANDBOX_MCP_ORIGIN = 'http://sandbox.local';
/** Where the sandbox serves the inventory server. */
export const SANDBOX_MCP_PATH = '/sandbox/mcp/inventory';

const WORKFLOW = 'incident_investigation';

export function withDemoMcp(
  config: Readonly<Record<string, unknown>>,
  modules: readonly SandboxModule[],
): Record<string, unknown> {
  const hasWorkflow = modules.some((module) => (module.workflows ?? []).some((w) => w.name === WORKFLOW));
  if ('mcp' in config || !hasWorkflow) return { ...config };
  return {
    ...config,
    mcp: {
      servers: [
        { name: 'inventory', url: `${SANDBOX_MCP_ORIGIN}${SANDBOX_MCP_PATH}`, workflows: [WORKFLOW] },
      ],
      historyServer: SANDBOX_HISTORY_SERVER,
    },
  };
}

/** `MCP_SERVERS` with the sandbox's origin replaced by where the sandbox listens. */
export function pointMcpAtSandbox(value: string | undefined, url: string): Record<string, string> {
  if (value === undefined) return {};
  return { MCP_SERVERS: value.replaceAll(`"${SANDBOX_MCP_ORIGIN}/`, `"${url}/`) };
}
