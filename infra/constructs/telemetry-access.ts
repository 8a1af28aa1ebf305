import { ArnFormat, CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import {
  TELEMETRY_ENV,
  type TelemetryConfig,
} from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import type { FunctionSpec } from '../../statemachines/kernel-functions.ts';
import { ThirdPartySecret } from './third-party-secret.ts';

/**
 * What a function that reads telemetry (`access.telemetry`, the telemetry tools) is given:
 * its configuration (`TELEMETRY_CONFIG`) and exactly the reads the configuration names, and no
 * more:
 * - `logs:FilterLogEvents`, `logs:StartQuery` on the configured log groups;
 * - `logs:GetQueryResults` and `cloudwatch:GetMetricData`, which have no resource-level
 *   permissions (the service authorizes GetMetricData per call on `*`);
 * - `cloudformation:DescribeStackEvents` on the configured stacks;
 * - read access to the Datadog and PagerDuty credentials secrets, created only when enabled.
 * With CloudWatch disabled none of the AWS reads is granted.
 */

const secrets = new WeakMap<Construct, Map<string, ThirdPartySecret>>();

function secretOf(
  scope: Construct,
  id: string,
  create: (stack: Stack) => ThirdPartySecret,
): ThirdPartySecret {
  const stack = Stack.of(scope);
  let byId = secrets.get(stack);
  if (byId === undefined) {
    byId = new Map();
    secrets.set(stack, byId);
  }
  let secret = byId.get(id);
  if (secret === undefined) {
    secret = create(stack);
    new CfnOutput(stack, `${id}SecretArn`, {
      value: secret.secretArn,
      description: `Put the ${id} credentials in this secret`,
    });
    byId.set(id, secret);
  }
  return secret;
}

export function grantTelemetryAccess(fn: NodejsFunction, spec: FunctionSpec, config: TelemetryConfig): void {
  if (spec.access?.telemetry !== true) return;
  fn.addEnvironment(TELEMETRY_ENV.config, JSON.stringify(config));
  const stack = Stack.of(fn);
  const role = fn.role;
  if (role === undefined) throw new Error(`${fn.node.id} has no execution role`);
  const acknowledge = (resource: string, reason: string) =>
    Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });

  if (config.sources.cloudwatch.enabled) {
    const groups = [...new Set(config.services.flatMap((s) => s.logGroups))];
    if (groups.length > 0) {
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['logs:FilterLogEvents', 'logs:StartQuery'],
          // Both forms: the group itself and `<group>:*`, the form older policies and some actions match on.
          resources: groups.flatMap((name) =>
            [name, `${name}:*`].map((resourceName) =>
              stack.formatArn({
                service: 'logs',
                resource: 'log-group',
                resourceName,
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            ),
          ),
        }),
      );
      for (const name of groups)
        acknowledge(
          `arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:${name}:*`,
          `Reads (FilterLogEvents, StartQuery) of the configured log group ${name}, in the ARN form with the stream wildcard.`,
        );
    }
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:GetQueryResults', 'cloudwatch:GetMetricData'],
        resources: ['*'],
      }),
    );
    acknowledge(
      '*',
      'Resource::* only for actions without resource-level permissions: logs:GetQueryResults and cloudwatch:GetMetricData (the telemetry tools), and X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords).',
    );
    const stacks = [...new Set(config.services.flatMap((s) => s.stacks))];
    if (stacks.length > 0) {
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['cloudformation:DescribeStackEvents'],
          resources: stacks.map((name) =>
            stack.formatArn({ service: 'cloudformation', resource: 'stack', resourceName: `${name}/*` }),
          ),
        }),
      );
      for (const name of stacks)
        acknowledge(
          `arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:stack/${name}/*`,
          `DescribeStackEvents of the configured stack ${name}: a stack ARN ends with its generated id.`,
        );
    }
  }
  if (config.sources.datadog.enabled) {
    const secret = secretOf(
      fn,
      'DatadogCredentials',
      (s) =>
        new ThirdPartySecret(s, 'DatadogCredentials', {
          description:
            'Datadog API credentials: { "apiKey": "...", "appKey": "..." } (an application key with logs_read_data and timeseries_query)',
          placeholders: { apiKey: 'REPLACE_WITH_DATADOG_API_KEY' },
          generatedField: 'appKey',
          issuedBy: 'Datadog (Organization Settings: API Keys and Application Keys)',
        }),
    );
    secret.grantRead(fn);
    fn.addEnvironment(TELEMETRY_ENV.datadogSecretArn, secret.secretArn);
  }
  if (config.sources.pagerduty.enabled) {
    const secret = secretOf(
      fn,
      'PagerDutyApiCredentials',
      (s) =>
        new ThirdPartySecret(s, 'PagerDutyApiCredentials', {
          description: 'PagerDuty REST API key: { "token": "..." } (a read-only API key)',
          placeholders: {},
          generatedField: 'token',
          issuedBy: 'PagerDuty (Integrations: API Access Keys, read-only)',
        }),
    );
    secret.grantRead(fn);
    fn.addEnvironment(TELEMETRY_ENV.pagerdutySecretArn, secret.secretArn);
  }
}
