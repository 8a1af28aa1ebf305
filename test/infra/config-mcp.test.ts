import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { buildStack } from '../../infra/synth.ts';
import { configProblems } from './config-problems.ts';
import { functionResource, variablesOf } from './template.ts';

/** The MCP settings at synth: what is refused with its path, and what the agent functions get. */

const WORKING = JSON.parse(
  readFileSync(new URL('../../docs/examples/bug-investigation.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const server = { name: 'grafana', url: 'https://grafana.example.com/mcp' };

describe('MCP servers in the configuration', () => {
  it('accepts a server, and offers approvals of its calls to the remediation approvers by default', () => {
    const config = parseConfig({
      ...WORKING,
      mcp: { servers: [server] },
      people: { ...(WORKING.people as object), incident_approver: { users: ['U0APPROVER1'] } },
    });
    expect(config.mcp.servers[0]).toMatchObject({
      name: 'grafana',
      timeoutSeconds: 20,
      maxResultChars: 8_000,
      workflows: [],
    });
    expect(config.approvals).toMatchObject({ mcp_tool_call: ['incident_approver'] });
  });

  it('refuses plain http outside the sandbox, an unknown workflow, and approvers nobody holds, each on its path', () => {
    expect(
      configProblems({
        ...WORKING,
        mcp: { servers: [{ ...server, url: 'http://grafana.example.com/mcp', workflows: ['incident'] }] },
        people: { ...(WORKING.people as object), incident_approver: { groups: [], users: [] } },
      }),
    ).toEqual([
      expect.stringMatching(
        /^slackAgents\.mcp\.servers\.0\.workflows\.0: "incident" is not a workflow here; expected one of .*incident_investigation/,
      ),
      'slackAgents.mcp.servers.0.url: expected https:// outside the sandbox (headers carry credentials)',
      'slackAgents.approvals.mcp_tool_call: role "incident_approver" has nobody in people: MCP calls that wait for an approval could never be approved',
    ]);
  });

  it('names an unknown key of a server with the nearest known one', () => {
    expect(configProblems({ ...WORKING, mcp: { servers: [{ ...server, timeoutSecond: 5 }] } })).toEqual([
      expect.stringMatching(
        /^slackAgents\.mcp\.servers\.0\.timeoutSecond: unknown key; did you mean .*timeoutSeconds\?$/,
      ),
    ]);
  });

  it("hands the settings to the functions and lets the agent turns read exactly the servers' header secrets", () => {
    const { stack } = buildStack({
      config: {
        sandbox: true,
        mcp: {
          servers: [
            { ...server, headersSecret: 'slack-agents/mcp/grafana' },
            { name: 'runbooks', url: 'https://runbooks.example.com/mcp' },
          ],
        },
      },
    });
    const template = Template.fromStack(stack);
    const [, agentTurn] = functionResource(template, 'IncidentAgentTurn');
    expect(JSON.parse(String(variablesOf(template, agentTurn).MCP_SERVERS))).toMatchObject({
      servers: [{ name: 'grafana', headersSecret: 'slack-agents/mcp/grafana' }, { name: 'runbooks' }],
    });
    const reads =
      JSON.stringify(template.findResources('AWS::IAM::Policy')).match(
        /secret:slack-agents\/mcp\/grafana-\?\?\?\?\?\?/g,
      ) ?? [];
    expect(reads.length).toBeGreaterThan(0);
    expect(JSON.stringify(template.toJSON())).not.toContain('secret:runbooks');
  });
});
