import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildStack } from '../../infra/synth.ts';
import { functionResource, renderIntrinsics, resourcesOfType, templateOf, variablesOf } from './template.ts';

/** Contract of what the ingress takes besides Slack (infra/constructs/ingress-sources.ts). */

function environmentOf(stack: Template, id: string): Record<string, unknown> {
  const [, resource] = functionResource(stack, id);
  return variablesOf(stack, resource);
}

/** The statements of a function's role's default policy, as JSON text. */
function policyOf(stack: Template, id: string): string {
  const [logicalId] = functionResource(stack, id);
  const policies = Object.entries(resourcesOfType(stack, 'AWS::IAM::Policy')).filter(([policyId]) =>
    policyId.startsWith(`${logicalId.replace(/[0-9A-F]{8}$/, '')}RoleDefaultPolicy`),
  );
  return JSON.stringify(policies.map(([, policy]) => policy.Properties.PolicyDocument));
}

/** The default stack, synthesized once (a synth takes seconds on a busy machine). */
let template: Template;
beforeAll(() => {
  template = templateOf();
});

describe('the ingress sources in the stack', () => {
  it('keeps the GitHub and PagerDuty webhook secrets in Secrets Manager, generated, none in the template', () => {
    const secrets = Object.entries(resourcesOfType(template, 'AWS::SecretsManager::Secret')).filter(
      ([id]) => id.includes('GithubWebhookSecret') || id.includes('PagerdutyWebhookSecret'),
    );

    expect(secrets).toHaveLength(2);
    for (const [, secret] of secrets) {
      expect(secret.Properties.GenerateSecretString).toMatchObject({ GenerateStringKey: 'secret' });
      expect(secret.Properties.SecretString).toBeUndefined();
    }
  });

  it('gives the ingress the secrets ARNs, read access to them, and write access to the table', () => {
    const env = environmentOf(template, 'Ingress');

    expect(renderIntrinsics(env.GITHUB_WEBHOOK_SECRET_ARN)).toMatch(/GithubWebhookSecret/);
    expect(renderIntrinsics(env.PAGERDUTY_WEBHOOK_SECRET_ARN)).toMatch(/PagerdutyWebhookSecret/);
    const policy = policyOf(template, 'Ingress');
    expect(policy).toMatch(/"secretsmanager:GetSecretValue"[^\]]*\][^}]*IngressSourcesGithubWebhookSecret/);
    expect(policy).toMatch(
      /"secretsmanager:GetSecretValue"[^\]]*\][^}]*IngressSourcesPagerdutyWebhookSecret/,
    );
    expect(policy).toContain('dynamodb:PutItem');
    expect(policy).not.toContain('dynamodb:Query');
  });

  it('tells the ingress the slash commands the workflows handle, as plain strings', () => {
    const env = environmentOf(template, 'Ingress');

    expect(JSON.parse(String(env.SLASH_COMMANDS)).sort()).toEqual(['/investigate', '/prd']);
  });

  it("tells the ingress each slash command's usage, so it can answer `help` at once", () => {
    const env = environmentOf(template, 'Ingress');
    const usage = JSON.parse(String(env.SLASH_COMMAND_USAGE)) as { command: string; usageHint?: string }[];

    expect(usage.map((u) => [u.command, u.usageHint]).sort()).toEqual([
      ['/investigate', '<description, alarm name or PagerDuty incident id>'],
      ['/prd', '<product idea>'],
    ]);
  });

  it('lets the Router invoke SlackPost, and only it, for notices on ended conversations', () => {
    const [slackPostId] = functionResource(template, 'SlackPost');

    expect(environmentOf(template, 'Router').SLACK_POST_FUNCTION).toEqual({ Ref: slackPostId });
    const invokes = policyOf(template, 'Router').match(/"lambda:InvokeFunction"[^}]*}[^}]*}/g);
    expect(invokes).toEqual([
      `"lambda:InvokeFunction","Effect":"Allow","Resource":{"Fn::GetAtt":["${slackPostId}","Arn"]}}`,
    ]);
  });

  it('creates no alarm rule when no alarm is configured', () => {
    // Only scheduled rules (the Reconciler's): none with an event pattern.
    const patterned = Object.entries(resourcesOfType(template, 'AWS::Events::Rule')).filter(
      ([, rule]) => rule.Properties.EventPattern !== undefined,
    );
    expect(patterned).toEqual([]);
  });

  it('routes the configured alarms state changes to the ingress, by name and by prefix', () => {
    const withAlarms = templateOf({
      config: { alarms: { names: ['checkout-5xx'], namePrefixes: ['prod-'] } },
    });
    const [ingressId] = functionResource(withAlarms, 'Ingress');

    withAlarms.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.cloudwatch'],
        'detail-type': ['CloudWatch Alarm State Change'],
        detail: { alarmName: ['checkout-5xx', { prefix: 'prod-' }] },
      },
      Targets: [
        Match.objectLike({ Arn: { 'Fn::GetAtt': [ingressId, 'Arn'] }, RetryPolicy: Match.anyValue() }),
      ],
    });
    withAlarms.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [ingressId, 'Arn'] },
    });
  });

  it('refuses an unknown field of the alarms configuration at synth', () => {
    expect(() => templateOf({ config: { alarms: { name: ['x'] } } as never })).toThrow(
      /slackAgents\.alarms\.name: unknown key; did you mean alarms\.names\?/,
    );
  });

  it('adds no unacknowledged cdk-nag finding with an alarm rule', () => {
    const { stack } = buildStack({ config: { alarms: { namePrefixes: ['prod-'] } } });

    const report = new AwsSolutionsChecks().validateScope(stack);

    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  });
});
