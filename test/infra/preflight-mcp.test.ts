import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMcp } from '../../infra/preflight/mcp-checks.ts';
import { McpSettings } from '../../lambdas/mcp/config.ts';
import { createInventoryMcp } from '../../local/mcp/inventory-server.ts';
import { readBody } from '../../local/read-body.ts';

/** `preflight --live` against a real MCP server (the sandbox's, on the SDK): its tools and their guards, or the cause it failed. */

const inventory = createInventoryMcp();
const server = createServer((request, response) => {
  void readBody(request).then((text) => inventory.handle(request, response, text));
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the live preflight of MCP servers', () => {
  it("lists each server's tools, which run without approval, which wait for one, and which are kept out", async () => {
    const report = { problems: [] as string[], passed: [] as string[] };
    const settings = McpSettings.parse({
      servers: [
        { name: 'inventory', url },
        { name: 'flags-only', url, tools: { deny: ['service_inventory'] } },
        { name: 'down', url: 'http://127.0.0.1:9/mcp', timeoutSeconds: 2 },
      ],
    });
    await checkMcp(settings, report, { headersOf: async () => ({}) });
    expect(report.passed).toEqual([
      'MCP server inventory: 2 tools; run without approval: service_inventory; wait for an approval: set_feature_flag; not offered: none',
      'MCP server flags-only: 2 tools; run without approval: none; wait for an approval: set_feature_flag; not offered: service_inventory',
    ]);
    expect(report.problems).toEqual([
      expect.stringMatching(
        /^MCP server down \(http:\/\/127\.0\.0\.1:9\/mcp\): MCP server "down" failed listing its tools: .+: check the URL/,
      ),
    ]);
  });
});
