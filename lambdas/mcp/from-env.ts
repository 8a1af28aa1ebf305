import { MCP_ENV, McpSettings, NO_MCP } from './config.ts';
import { InvalidMcpSettingsError } from './errors.ts';

/**
 * The installation's MCP settings from the environment the stack sets on every function.
 * Absent: no servers. Bad JSON or settings stop the function with the variable named, never
 * a silent default (a server's guards must not be dropped).
 */
export function mcpSettings(env: NodeJS.ProcessEnv = process.env): McpSettings {
  const raw = env[MCP_ENV];
  if (raw === undefined || raw === '') return NO_MCP;
  try {
    return McpSettings.parse(JSON.parse(raw));
  } catch (cause) {
    throw new InvalidMcpSettingsError(MCP_ENV, { cause });
  }
}
