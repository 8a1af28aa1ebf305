import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildStack } from '../../infra/synth.ts';
import { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import {
  TELEMETRY_TOOLS_FUNCTION,
  telemetryToolFunctions,
} from '../../lambdas/workflows/incident-investigation/telemetry/deployment.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { grantTelemetryAccess } from '../../statemachines/incident-investigation/telemetry-access.ts';
import { agentTurnFunction } from '../../statemachines/kernel-functions.ts';
import { defineWorkflowModule } from '../../statemachines/workflow-module.ts';
import { functionResource, renderIntrinsics, resourcesOfType, variablesOf } from './template.ts';

/**
 * The telemetry tools' function as a module deploys it: its configuration, and exactly the
 * read permissions the configuration names: FilterLogEvents and StartQuery on the
 * configured log groups, GetQueryResults and GetMetricData (no resource-level permissions),
 * DescribeStackEvents on the configured stacks, the third-party secrets only when enabled.
 */

type FunctionId = 'TelemetryTools' | 'TelemetryAgentTurn';

const MODULE = defineWorkflowModule<FunctionId, TelemetryConfig>({
  name: 'telemetry_test',
  // Its own section, under the key the stack's telemetry settings had before they moved into the incident module's.
  settings: { key: 'telemetry', schema: TelemetryConfig },
  roles: ['reporter'],
  functions: {
    TelemetryTools: TELEMETRY_TOOLS_FUNCTION,
    TelemetryAgentTurn: agentTurnFunction(
      'lambdas/handlers/agent-turn.ts',
      telemetryToolFunctions('TelemetryTools'),
    ),
  },
  // As the incident module does: its provision grants the tools' reads.
  provision: (_scope, settings, functions, stack) => {
    if (functions.TelemetryTools) grantTelemetryAccess(functions.TelemetryTools, settings, stack);
  },
});

function stackWith(telemetry: unknown) {
  return buildStack({ modules: [MODULE], config: { telemetry } }).stack;
}

/** Synthesis is the slow part: each configuration's template is built once, in a hook with room for a busy machine. */
const templates = new Map<string, Template>();
const templateWith = (telemetry: unknown) => {
  const key = JSON.stringify(telemetry);
  let template = templates.get(key);
  if (template === undefined) {
    template = Template.fromStack(stackWith(telemetry));
    templates.set(key, template);
  }
  return template;
};
const WITH_THIRD_PARTIES = {
  ...DEMO_TELEMETRY_CONFIG,
  sources: { datadog: { enabled: true }, pagerduty: { enabled: true } },
};
const WITHOUT_CLOUDWATCH = { ...DEMO_TELEMETRY_CONFIG, sources: { cloudwatch: { enabled: false } } };
const WITH_REVIEW = { ...DEMO_TELEMETRY_CONFIG, logTemplateReview: { enabled: true } };

beforeAll(() => {
  for (const config of [DEMO_TELEMETRY_CONFIG, WITH_THIRD_PARTIES, WITHOUT_CLOUDWATCH, WITH_REVIEW])
    templateWith(config);
});

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Every statement of the policies attached to a function's role, actions and resources as text. */
function statementsOf(template: Template, functionId: string): { actions: string[]; resources: string[] }[] {
  const [, fn] = functionResource(template, functionId);
  const role = renderIntrinsics((fn.Properties.Role as unknown) ?? '');
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) =>
      (policy.Properties.Roles as unknown[]).some((r) => `<${(r as { Ref: string }).Ref}.Arn>` === role),
    )
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .map((s) => ({
      actions: [s.Action].flat(),
      resources: [s.Resource].flat().map((r) => renderIntrinsics(r)),
    }));
}

/** Every function writes its own log group; reading telemetry is everything else of these services. */
const OWN_LOGS = new Set(['logs:CreateLogStream', 'logs:PutLogEvents']);
const readsTelemetry = (action: string) =>
  /^(logs|cloudwatch|cloudformation):/.test(action) && !OWN_LOGS.has(action);

const TELEMETRY_ACTIONS = [
  'logs:FilterLogEvents',
  'logs:StartQuery',
  'logs:GetQueryResults',
  'cloudwatch:GetMetricData',
  'cloudformation:DescribeStackEvents',
];

describe('the telemetry tools function', () => {
  it('gets its configuration as TELEMETRY_CONFIG, validated and with every default', () => {
    const template = templateWith(DEMO_TELEMETRY_CONFIG);
    const [, fn] = functionResource(template, 'TelemetryTools');
    const variables = variablesOf(template, fn) as Record<string, string>;
    expect(JSON.parse(variables.TELEMETRY_CONFIG ?? '')).toEqual(
      TelemetryConfig.parse(DEMO_TELEMETRY_CONFIG),
    );
    expect(variables.DATADOG_SECRET_ARN).toBeUndefined();
    expect(variables.PAGERDUTY_SECRET_ARN).toBeUndefined();
  });

  it('may read the configured log groups, metrics and stacks, and nothing else of CloudWatch or CloudFormation', () => {
    const statements = statementsOf(templateWith(DEMO_TELEMETRY_CONFIG), 'TelemetryTools');
    const telemetry = statements.filter((s) => s.actions.some(readsTelemetry));
    expect(telemetry.flatMap((s) => s.actions).sort()).toEqual([...TELEMETRY_ACTIONS].sort());
    const logs = telemetry.find((s) => s.actions.includes('logs:FilterLogEvents'));
    expect(logs?.actions.sort()).toEqual(['logs:FilterLogEvents', 'logs:StartQuery']);
    expect(
      logs?.resources.map((r) =>
        r.replace(/^arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/, ''),
      ),
    ).toEqual([
      '/ecs/checkout',
      '/ecs/checkout:*',
      '/ecs/payment-api',
      '/ecs/payment-api:*',
      '/ecs/session-cache',
      '/ecs/session-cache:*',
    ]);
    expect(telemetry.find((s) => s.actions.includes('cloudwatch:GetMetricData'))?.resources).toEqual(['*']);
    expect(
      telemetry.find((s) => s.actions.includes('cloudformation:DescribeStackEvents'))?.resources,
    ).toEqual(
      ['checkout-prod', 'payment-api-prod', 'session-cache-prod'].map(
        (name) => `arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:stack/${name}/*`,
      ),
    );
  });

  it('gets no CloudWatch or CloudFormation permission with CloudWatch disabled', () => {
    const statements = statementsOf(templateWith(WITHOUT_CLOUDWATCH), 'TelemetryTools');
    expect(statements.flatMap((s) => s.actions).filter(readsTelemetry)).toEqual([]);
  });

  it('reads the Datadog and PagerDuty secrets, created for it, only when those sources are enabled', () => {
    const template = templateWith(WITH_THIRD_PARTIES);
    const [, fn] = functionResource(template, 'TelemetryTools');
    const variables = variablesOf(template, fn);
    expect(renderIntrinsics(variables.DATADOG_SECRET_ARN)).toMatch(/^<DatadogCredentials\w+>$/);
    expect(renderIntrinsics(variables.PAGERDUTY_SECRET_ARN)).toMatch(/^<PagerDutyApiCredentials\w+>$/);
    const secretReads = statementsOf(template, 'TelemetryTools').filter((s) =>
      s.actions.includes('secretsmanager:GetSecretValue'),
    );
    expect(secretReads.flatMap((s) => s.resources).sort()).toEqual(
      [
        renderIntrinsics(variables.DATADOG_SECRET_ARN),
        renderIntrinsics(variables.PAGERDUTY_SECRET_ARN),
      ].sort(),
    );
    // The agent turn that calls the tools gets none of it.
    const turn = statementsOf(template, 'TelemetryAgentTurn').flatMap((s) => s.actions);
    expect(turn.filter(readsTelemetry)).toEqual([]);
  });

  it("reads the model's key only with the template review enabled (query_logs then calls the model)", () => {
    const modelSecretReads = (template: Template) =>
      statementsOf(template, 'TelemetryTools')
        .filter((s) => s.actions.includes('secretsmanager:GetSecretValue'))
        .flatMap((s) => s.resources)
        .filter((r) => /^<ModelCredentials\w+>$/.test(r));
    expect(modelSecretReads(templateWith(DEMO_TELEMETRY_CONFIG))).toEqual([]);
    const template = templateWith(WITH_REVIEW);
    expect(modelSecretReads(template)).toHaveLength(1);
    const [, fn] = functionResource(template, 'TelemetryTools');
    const variables = variablesOf(template, fn) as Record<string, string>;
    expect(JSON.parse(variables.TELEMETRY_CONFIG ?? '').logTemplateReview.enabled).toBe(true);
  });

  it('leaves no cdk-nag finding unacknowledged', () => {
    const stack = stackWith(WITH_THIRD_PARTIES);
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(
      report.violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
      ),
    ).toEqual([]);
  });

  it('fails the synth for a service listed twice, naming the field', () => {
    expect(() => stackWith({ services: [{ name: 'a' }, { name: 'a' }] })).toThrow(
      /slackAgents\.telemetry\.services\.1\.name: a is listed twice/,
    );
  });
});
