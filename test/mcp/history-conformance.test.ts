import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HISTORY_CONFORMANCE_SCENARIOS,
  runConformanceScenario,
  startUnsignedHistoryMcp,
} from './history-conformance-server.ts';

/**
 * The history MCP server against `@modelcontextprotocol/conformance`, in the scenarios a server
 * with one tool and no resources, prompts or sessions can meet (history-conformance-server.ts
 * lists the others and why they do not apply).
 */

let server: Awaited<ReturnType<typeof startUnsignedHistoryMcp>>;
beforeAll(async () => {
  server = await startUnsignedHistoryMcp();
});
afterAll(async () => server?.close());

describe('the history MCP server under the MCP conformance suite', () => {
  it.each(HISTORY_CONFORMANCE_SCENARIOS)('passes %s', async (scenario) => {
    const checks = await runConformanceScenario(server.url, scenario);
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO')).toEqual([]);
  });
});
