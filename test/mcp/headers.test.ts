import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpConnector } from '../../lambdas/adapters/mcp-client.ts';
import { mcpHeaders } from '../../lambdas/adapters/mcp-headers.ts';
import { InvalidMcpHeadersError } from '../../lambdas/mcp/errors.ts';
import { createInventoryMcp } from '../../local/mcp/inventory-server.ts';
import { startMoto } from '../../local/moto-server.ts';
import { readBody } from '../../local/read-body.ts';

/**
 * An MCP server's headers from Secrets Manager (moto_server standing in for it, read through
 * Powertools as in Lambda), sent with every request the SDK's client makes.
 */

let moto: Awaited<ReturnType<typeof startMoto>>;
const inventory = createInventoryMcp();
const seen: (string | undefined)[] = [];
const server = createServer((request, response) => {
  seen.push(request.headers.authorization);
  void readBody(request).then((text) => inventory.handle(request, response, text));
});
let url = '';

beforeAll(async () => {
  moto = await startMoto();
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = moto.endpoint;
  process.env.AWS_REGION = 'eu-west-1';
  process.env.AWS_ACCESS_KEY_ID = 'testing';
  process.env.AWS_SECRET_ACCESS_KEY = 'testing';
  const client = new SecretsManagerClient({});
  await client.send(
    new CreateSecretCommand({
      Name: 'mcp/inventory',
      SecretString: JSON.stringify({ authorization: 'Bearer moto-only' }),
    }),
  );
  await client.send(
    new CreateSecretCommand({ Name: 'mcp/broken', SecretString: JSON.stringify({ authorization: 42 }) }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  moto?.process.kill();
});

describe('MCP request headers', () => {
  it("reads them from the server's headersSecret and sends them with each request", async () => {
    const headers = await mcpHeaders({ name: 'inventory', headersSecret: 'mcp/inventory' });
    const tools = await createMcpConnector().listTools({ name: 'inventory', url, headers, timeoutMs: 5_000 });
    expect(tools.map((tool) => tool.name).sort()).toEqual(['service_inventory', 'set_feature_flag']);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['Bearer moto-only']));
  });

  it('refuses a secret that is not an object of header strings, naming the server and the secret', async () => {
    await expect(mcpHeaders({ name: 'broken', headersSecret: 'mcp/broken' })).rejects.toThrow(
      new InvalidMcpHeadersError('broken', 'mcp/broken'),
    );
  });

  it('sends no headers for a server without a secret', async () => {
    expect(await mcpHeaders({ name: 'open' })).toEqual({});
  });
});
