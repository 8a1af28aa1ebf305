import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import { TELEMETRY_ENV } from '../../lambdas/workflows/incident-investigation/telemetry/environment.ts';
import type { ProvisionContext } from '../workflow-module.ts';

/**
 * What a function that reads telemetry (the telemetry tools) is given, by its module's `provision`:
 * its configuration (`TELEMETRY_CONFIG`) and exactly the reads the configuration names, and no
 * more:
 * - `logs:FilterLogEvents`, `logs:StartQuery` on the configured log groups;
 * - `logs:GetQueryResults` and `cloudwatch:GetMetricData`, which have no resource-level
 *   permissions (the service authorizes GetMetricData per call on `*`);
 * - `cloudformation:DescribeStackEvents` on the configured stacks;
 * - read access to the Datadog and PagerDuty credentials secrets, created only when enabled;
 * - the model (its key secret, or Bedrock's invoke) only with `logTemplateReview.enabled`.
 * With CloudWatch disabled none of the AWS reads is granted.
 */

export function grantTelemetryAccess(
  fn: LambdaFunction,
  config: TelemetryConfig,
  stackContext: ProvisionContext,
): void {
  fn.addEnvironment(TELEMETRY_ENV.config, JSON.stringify(config));
  // query_logs' optional template review calls the configured model.
  if (config.logTemplateReview.enabled) stackContext.grantModel?.(fn);
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
    const secret = stackContext.thirdPartySecret('DatadogCredentials', {
      description:
        'Datadog API credentials: { "apiKey": "...", "appKey": "..." } (an application key with logs_read_data and timeseries_query)',
      placeholders: { apiKey: 'REPLACE_WITH_DATADOG_API_KEY' },
      generatedField: 'appKey',
      issuedBy: 'Datadog (Organization Settings: API Keys and Application Keys)',
    });
    secret.grantRead(fn);
    fn.addEnvironment(TELEMETRY_ENV.datadogSecretArn, secret.secretArn);
  }
  if (config.sources.pagerduty.enabled) {
    const secret = stackContext.thirdPartySecret('PagerDutyApiCredentials', {
      description: 'PagerDuty REST API key: { "token": "..." } (a read-only API key)',
      placeholders: {},
      generatedField: 'token',
      issuedBy: 'PagerDuty (Integrations: API Access Keys, read-only)',
    });
    secret.grantRead(fn);
    fn.addEnvironment(TELEMETRY_ENV.pagerdutySecretArn, secret.secretArn);
  }
}
