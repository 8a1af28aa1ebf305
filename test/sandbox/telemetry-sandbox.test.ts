import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStack } from '../../infra/synth.ts';
import { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import { TELEMETRY_TOOLS_FUNCTION } from '../../lambdas/workflows/incident-investigation/telemetry/deployment.ts';
import { DynamoEvidenceLedger } from '../../lambdas/workflows/incident-investigation/telemetry/dynamo-evidence-ledger.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { grantTelemetryAccess } from '../../statemachines/incident-investigation/telemetry-access.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { defineWorkflowModule } from '../../statemachines/workflow-module.ts';
import { functionResource } from '../infra/template.ts';
import { loghubDir } from '../log-analysis/loghub.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { itWithLoghub } from '../support/shared-data.ts';

/**
 * The telemetry tools' Lambda in the sandbox, as a module deploys it: the function taken from
 * the synthesized template (its TELEMETRY_CONFIG is the demo incident's services, the sandbox's
 * default), invoked through the Lambda API with the real SDK, reading the emulators seeded with
 * the demo incident and writing its evidence into the sandbox's table.
 */

const TOOLS_MODULE = defineWorkflowModule({
  name: 'telemetry_tools',
  settings: { key: 'telemetry', schema: TelemetryConfig },
  roles: ['reporter'],
  functions: { TelemetryTools: TELEMETRY_TOOLS_FUNCTION },
  // As the incident module does: its provision gives the tools their configuration and reads.
  provision: (_scope, settings, functions, stack) => {
    if (functions.TelemetryTools) grantTelemetryAccess(functions.TelemetryTools, settings, stack);
  },
});

let sandbox: Sandbox;
let lambda: LambdaClient;
let functionName: string;
const MODULES = [KERNEL_PROBE_MODULE, TOOLS_MODULE];
const CONFIG = { channels: { probe: 'C_PROBE' }, telemetry: DEMO_TELEMETRY_CONFIG };

beforeAll(async () => {
  // The sandbox names functions by their logical id, as the template does.
  [functionName] = functionResource(
    Template.fromStack(buildStack({ modules: MODULES, config: CONFIG }).stack),
    'TelemetryTools',
  );
  sandbox = await workerSandbox({
    modules: MODULES,
    config: CONFIG,
    logLevel: 'SILENT',
    telemetry: { loghubDir: loghubDir() },
  });
  lambda = new LambdaClient({
    endpoint: sandbox.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
  });
});

afterAll(async () => {
  lambda?.destroy();
  await sandbox?.stop();
});

async function invoke(tool: string, args: unknown, scope?: string) {
  const response = await lambda.send(
    new InvokeCommand({
      FunctionName: functionName,
      Payload: new TextEncoder().encode(
        JSON.stringify({
          tool,
          args,
          conversationId: 'incident-sandbox',
          ...(scope ? { context: { scope } } : {}),
        }),
      ),
    }),
  );
  expect(response.FunctionError).toBeUndefined();
  return JSON.parse(new TextDecoder().decode(response.Payload)) as {
    ok: boolean;
    output?: string;
    error?: string;
  };
}

describe('the telemetry tools in the sandbox', () => {
  it('starts with the demo incident in its telemetry', () => {
    expect(sandbox.telemetry.demo?.deployAt).toBeLessThan(Date.now());
  });

  itWithLoghub("mixes Loghub lines into the demo incident's CloudWatch Logs as noise", async () => {
    const logs = new CloudWatchLogsClient({
      endpoint: sandbox.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 's', secretAccessKey: 's' },
    });
    const noise = await logs.send(
      new FilterLogEventsCommand({
        logGroupName: '/ecs/checkout',
        logStreamNamePrefix: 'host-agent/',
        limit: 5,
      }),
    );
    logs.destroy();
    expect(sandbox.telemetry.noiseNote).toBeUndefined();
    expect(noise.events?.length).toBe(5);
  });

  it('answers query_logs through its Lambda with an evidence id, and stores the evidence in the table', async () => {
    const result = await invoke(
      'query_logs',
      { service: 'payment-api', filterPattern: '"timed out"', lastMinutes: 60 },
      'round-1:h1',
    );
    expect(result.ok).toBe(true);
    expect(result.output).toMatch(
      /^Evidence ev-1 \(query_logs, cloudwatch-logs:\/ecs\/payment-api, .*\. Queries used in scope round-1:h1: 1 of 5\./,
    );
    expect(result.output).toContain('provider request timed out after <*>ms op=charge provider=acmepay');
    const ledger = new DynamoEvidenceLedger({ client: sandbox.dynamodb, tableName: sandbox.tableName });
    expect((await ledger.listEvidence('incident-sandbox')).map((r) => [r.id, r.tool, r.scope])).toEqual([
      ['ev-1', 'query_logs', 'round-1:h1'],
    ]);
  });

  it('reads the payment-api deployment from the emulated CloudFormation', async () => {
    const result = await invoke('recent_deployments', { service: 'payment-api', lastMinutes: 120 });
    expect(result.output).toContain('payment-api-prod [payment-api]: UPDATE_COMPLETE');
  });
});
