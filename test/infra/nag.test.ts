import { Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import {
  probeStack,
  probeTemplate,
  renderIntrinsics,
  resourcesOfType,
  sharedProbeStack,
  sharedStack,
  templateOf,
} from './template.ts';

/**
 * cdk-nag 3 is a validation plugin, not an Aspect: its findings never become annotations
 * (`Annotations.fromStack(...).findError` would always be empty). `validateScope` runs the
 * same checks the synth runs and returns the unacknowledged findings.
 */
function unacknowledgedFindings(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
  );
}

function acknowledgments(scope: IConstruct): { id: string; reason: string; path: string }[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          // aws-cdk-lib records the id with its plugin namespace, as cdk-nag reads it back.
          id: id.replace(/^annotation::/i, ''),
          reason,
          path: construct.node.path,
        })),
      ),
  );
}

/** Actions that support no resource-level permissions: the only ones allowed on Resource '*'. */
const ACTIONS_WITHOUT_RESOURCES = new Set([
  // The incident workflow's telemetry tools: neither action has resource-level permissions.
  'logs:GetQueryResults',
  'cloudwatch:GetMetricData',
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
  'logs:CreateLogDelivery',
  'logs:GetLogDelivery',
  'logs:UpdateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:DescribeResourcePolicies',
  'logs:DescribeLogGroups',
  'states:SendTaskSuccess',
  'states:SendTaskFailure',
  // The telemetry tools (statemachines/incident-investigation/telemetry-access.ts): neither takes a resource.
  'logs:GetQueryResults',
  'cloudwatch:GetMetricData',
]);

describe('cdk-nag AWS Solutions checks', () => {
  it('find nothing unacknowledged in the stack with the probe workflow', () => {
    expect(unacknowledgedFindings(sharedProbeStack())).toEqual([]);
  });

  it('report a finding nobody acknowledged (the check above can fail)', () => {
    const { stack } = probeStack();
    new Queue(stack, 'UnencryptedQueue', { encryption: QueueEncryption.UNENCRYPTED });
    expect(unacknowledgedFindings(stack)).toContain(
      'AwsSolutions-SQS4 at SlackAgents/UnencryptedQueue/Resource',
    );
  });

  it('find nothing unacknowledged in the production stack', () => {
    expect(unacknowledgedFindings(sharedStack())).toEqual([]);
  });

  it('find nothing unacknowledged with a repository configured (the code tools, the checks build, the fix path)', () => {
    const stack = sharedStack({ config: { bugInvestigation: { repository: 'demo/webshop' } } });
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('find nothing unacknowledged with the issue pipeline deployed (its code tools, checks build and functions)', () => {
    const stack = sharedStack({ config: { issuePipeline: { repository: 'demo/webshop' } } });
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('let the app synthesize with the checks registered as a validation plugin', () => {
    const { app } = probeStack();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('acknowledge each finding with a specific reason', () => {
    const all = [...acknowledgments(sharedProbeStack()), ...acknowledgments(sharedStack())];
    expect(all.length).toBeGreaterThan(0);
    for (const { id, reason, path } of all) {
      expect(reason.length, `${id} at ${path}`).toBeGreaterThanOrEqual(20);
      expect(reason, `${id} at ${path}`).not.toMatch(
        /^(n\/?a|todo|ok|suppressed|acknowledged|not needed|false positive)\.?$/i,
      );
      expect(reason, `${id} at ${path}`).not.toContain(id);
    }
  });

  it('acknowledge only rules of the AWS Solutions pack, never a whole rule at the stack level', () => {
    for (const stack of [sharedProbeStack(), sharedStack()]) {
      for (const { id, path } of acknowledgments(stack)) {
        expect(id).toMatch(/^AwsSolutions-/);
        expect(path).not.toBe(stack.node.path);
      }
    }
  });

  it('need no wildcard acknowledgment for the state machines: their tasks invoke published versions, by ARN', () => {
    const invokeAcknowledgments = acknowledgments(sharedStack()).filter(({ id }) =>
      id.startsWith('AwsSolutions-IAM5[Resource::<'),
    );
    expect(invokeAcknowledgments).toEqual([]);
    const template = templateOf();
    const versions = new Set(Object.keys(resourcesOfType(template, 'AWS::Lambda::Version')));
    const stateMachineRoles = Object.values(
      resourcesOfType(template, 'AWS::StepFunctions::StateMachine'),
    ).map((machine) => renderIntrinsics(machine.Properties.RoleArn).replace(/^<(\w+)\.Arn>$/, '$1'));
    const invoked = Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
      .filter((policy) =>
        (policy.Properties.Roles as { Ref: string }[]).some((role) => stateMachineRoles.includes(role.Ref)),
      )
      .flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
            .Statement,
      )
      .filter((statement) => [statement.Action].flat().includes('lambda:InvokeFunction'))
      .flatMap((statement) => [statement.Resource].flat().map(renderIntrinsics));
    expect(invoked.length).toBeGreaterThan(10);
    expect(invoked.filter((resource) => !versions.has(resource.replace(/^<(\w+)>$/, '$1')))).toEqual([]);
  });

  it.each([
    ['probe', probeTemplate],
    ['production', () => templateOf()],
  ])(
    'back the wildcard acknowledgments in the %s stack: Resource "*" carries only actions without resource-level permissions',
    (_name, templateOfStack) => {
      const template = templateOfStack();
      const onWildcard = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap((policy) =>
        (
          policy.Properties.PolicyDocument as {
            Statement: { Action: string | string[]; Resource: unknown }[];
          }
        ).Statement.filter((statement) =>
          [statement.Resource].flat().some((resource) => renderIntrinsics(resource) === '*'),
        ).flatMap((statement) => [statement.Action].flat()),
      );
      expect(onWildcard.length).toBeGreaterThan(0);
      expect(onWildcard.filter((action) => !ACTIONS_WITHOUT_RESOURCES.has(action))).toEqual([]);
    },
  );
});
