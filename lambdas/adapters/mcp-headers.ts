import * as z from 'zod';
import { InvalidMcpHeadersError } from '../mcp/errors.ts';
import { readJsonSecret } from './secret-json.ts';

const Headers = z.record(z.string(), z.string());

/**
 * An MCP server's request headers: its `headersSecret` in Secrets Manager, a JSON object of
 * strings, cached by Powertools for five minutes. No secret: no headers. Never logged.
 */
export async function mcpHeaders(server: {
  name: string;
  headersSecret?: string | undefined;
}): Promise<Record<string, string>> {
  if (server.headersSecret === undefined) return {};
  const raw = await readJsonSecret(server.headersSecret);
  const parsed = Headers.safeParse(raw);
  if (!parsed.success)
    throw new InvalidMcpHeadersError(server.name, server.headersSecret, { cause: parsed.error });
  return parsed.data;
}
