import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { buildStack } from '../../infra/synth.ts';
import { ALL_OPTIONS_CONFIG } from './all-options.ts';
import { acknowledgments, unacknowledgedFindings } from './nag-findings.ts';
import { functionResource, renderIntrinsics, resourcesOfType } from './template.ts';

/**
 * Every documented option deploys: the stack with all of them at once passes cdk-nag's AWS
 * Solutions checks, and what an option needs at run time is in the template (an SSM skill's
 * Automation role, which the runner may pass to SSM and nowhere else).
 */
const { app, stack } = buildStack({ config: ALL_OPTIONS_CONFIG });
const template = Template.fromStack(stack);

describe('the stack with every option enabled', () => {
  it('deploys every workflow, the code tools, the checks builds and the skills it was asked for', () => {
    expect([...stack.stateMachines.keys()].sort()).toEqual([
      'bug_investigation',
      'incident_investigation',
      'issue_pipeline',
      'requirements_interview',
      'sla_tracking',
    ]);
    expect(Object.keys(resourcesOfType(template, 'AWS::CodeBuild::Project')).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(stack.functions.has('IncidentDemoSkill')).toBe(true);
    expect(
      Object.keys(resourcesOfType(template, 'AWS::SecretsManager::Secret')).length,
    ).toBeGreaterThanOrEqual(6);
  });

  it('leaves no cdk-nag finding unacknowledged', () => {
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  // A whole synth with every check: minutes on a loaded machine (bench/synth.ts prints its time).
  it('synthesizes with the AWS Solutions checks registered as a validation plugin', () => {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it('acknowledges each finding with a specific reason of its own', () => {
    const all = acknowledgments(stack);
    for (const { id, reason, path } of all) {
      expect(id, path).toMatch(/^AwsSolutions-/);
      expect(reason.length, `${id} at ${path}`).toBeGreaterThanOrEqual(20);
      expect(reason, `${id} at ${path}`).not.toMatch(
        /^(n\/?a|todo|ok|suppressed|acknowledged|not needed|false positive)\.?$/i,
      );
      expect(reason, `${id} at ${path}`).not.toContain(id);
    }
    const ssm = all.filter(({ id }) => id.includes(':ssm:'));
    expect(ssm.map(({ id }) => id).sort()).toEqual([
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:automation-definition/AWS-RestartEC2Instance:*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:automation-definition/Ops-ScaleService:*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:automation-execution/*]',
    ]);
    for (const { reason } of ssm) expect(reason).toMatch(/^ssm:(Start|Get)AutomationExecution: /);
  });
});

describe("an SSM Automation skill's role", () => {
  const roles = Object.entries(resourcesOfType(template, 'AWS::IAM::Role')).filter(([, role]) =>
    JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('ssm.amazonaws.com'),
  );

  it('is one role SSM assumes for executions of this account and region only, with the configured policies', () => {
    expect(roles).toHaveLength(1);
    const role = roles[0]?.[1];
    if (role === undefined) throw new Error('no Automation role');
    expect(role.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'ssm.amazonaws.com' },
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            ArnLike: { 'aws:SourceArn': expect.anything() },
          },
        },
      ],
    });
    const sourceArn = (
      role.Properties.AssumeRolePolicyDocument as {
        Statement: { Condition: { ArnLike: Record<string, unknown> } }[];
      }
    ).Statement[0]?.Condition.ArnLike['aws:SourceArn'];
    expect(renderIntrinsics(sourceArn)).toBe(
      'arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:automation-execution/*',
    );
    expect(role.Properties.ManagedPolicyArns).toEqual([
      'arn:aws:iam::123456789012:policy/ops-scale-ecs',
      'arn:aws:iam::aws:policy/service-role/AmazonSSMAutomationRole',
    ]);
  });

  it('is the one role the runner may pass, and only to SSM; the runner gets its ARN', () => {
    const [roleId] = roles[0] ?? [];
    const [, runner] = functionResource(template, 'IncidentRemediation');
    expect((runner.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject(
      {
        INCIDENT_AUTOMATION_ROLE_ARN: { 'Fn::GetAtt': [roleId, 'Arn'] },
      },
    );
    const passRole = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap((policy) =>
      (
        policy.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }
      ).Statement.filter((statement) => [statement.Action].flat().includes('iam:PassRole')),
    );
    expect(passRole).toEqual([
      {
        Action: 'iam:PassRole',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [roleId, 'Arn'] },
        Condition: { StringEquals: { 'iam:PassedToService': 'ssm.amazonaws.com' } },
      },
    ]);
  });

  it('is not created without an SSM skill', () => {
    const { stack: plain } = buildStack({
      config: { incidentInvestigation: { skills: ALL_OPTIONS_CONFIG.incidentInvestigation.skills.slice(2) } },
    });
    const text = JSON.stringify(Template.fromStack(plain).toJSON());
    expect(text).not.toContain('ssm.amazonaws.com');
    expect(text).not.toContain('iam:PassRole');
  });
});
