import { Aws, Validations } from 'aws-cdk-lib';
import { Effect, ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  INCIDENT_ENV,
  type IncidentInvestigationSettings,
} from '../../lambdas/workflows/incident-investigation/config.ts';
import type { IncidentFunctionId } from './functions.ts';

/**
 * The role SSM Automation assumes to run the SSM skills' documents: StartAutomationExecution
 * passes it as the `AutomationAssumeRole` parameter, so a document's steps act with this
 * role's permissions (the configured `policyArns`), not the runner's. Trusted by SSM for
 * executions of this account and region only; the runner may pass exactly this role, and only
 * to SSM. Without an SSM skill, nothing is created.
 */
export function provisionAutomationRole(
  scope: Construct,
  settings: IncidentInvestigationSettings,
  functions: Readonly<Partial<Record<IncidentFunctionId, LambdaFunction>>>,
): void {
  const targets = settings.skills.flatMap((s) => (s.target.type === 'ssm_automation' ? [s.target] : []));
  const runner = functions.IncidentRemediation;
  if (targets.length === 0 || runner === undefined) return;
  const policyArns = [...new Set(targets.flatMap((t) => t.policyArns))];
  const role = new Role(scope, 'SkillAutomationRole', {
    // The confused-deputy guard: SSM assumes it for Automation executions of this account and region.
    assumedBy: new ServicePrincipal('ssm.amazonaws.com', {
      conditions: {
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: {
          'aws:SourceArn': `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:automation-execution/*`,
        },
      },
    }),
    description: "Runs the incident remediation skills' SSM Automation documents",
    managedPolicies: policyArns.map((arn, i) =>
      ManagedPolicy.fromManagedPolicyArn(scope, `SkillPolicy${i}`, arn),
    ),
  });
  for (const arn of policyArns.filter((a) => /:iam::aws:policy\//.test(a))) {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM4[Policy::${arn}]`,
      reason: `The operator named this AWS managed policy for an SSM skill's document (incidentInvestigation.skills[].target.policyArns); the role runs those documents only.`,
    });
  }
  runner.addToRolePolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['iam:PassRole'],
      resources: [role.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'ssm.amazonaws.com' } },
    }),
  );
  runner.addEnvironment(INCIDENT_ENV.automationRole, role.roleArn);
}
