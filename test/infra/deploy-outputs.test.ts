import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { templateOf } from './template.ts';

/**
 * The outputs the README's deploy guide pastes from: every URL Slack,
 * GitHub and PagerDuty are given, and the name of every secret to fill in. Their ids are
 * written out here, not imported: the names the README and docs/deploy.md give are the contract.
 */

const template = templateOf();
const outputs = template.toJSON().Outputs as Record<string, { Value: unknown; Description?: string }>;

/** The logical id of the only resource of a type whose id starts with `prefix`. */
function logicalId(type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids).toHaveLength(1);
  return ids[0] as string;
}

describe('the deploy outputs', () => {
  it('gives the Slack, GitHub and PagerDuty URLs on the ingress Function URL', () => {
    const url = logicalId('AWS::Lambda::Url', 'Ingress');
    const functionUrl = { 'Fn::GetAtt': [url, 'FunctionUrl'] };

    expect(outputs.SlackRequestUrl?.Value).toEqual(functionUrl);
    expect(outputs.GitHubWebhookUrl?.Value).toEqual({
      'Fn::Join': ['', [functionUrl, 'github/events']],
    });
    expect(outputs.PagerDutyWebhookUrl?.Value).toEqual({
      'Fn::Join': ['', [functionUrl, 'pagerduty/events']],
    });
  });

  it("names each secret to fill in, from the secret's own ARN", () => {
    const secrets = {
      SlackCredentialsSecretName: logicalId('AWS::SecretsManager::Secret', 'SlackCredentials'),
      ModelCredentialsSecretName: logicalId('AWS::SecretsManager::Secret', 'ModelCredentials'),
      GitHubWebhookSecretName: logicalId('AWS::SecretsManager::Secret', 'IngressSourcesGithubWebhookSecret'),
      PagerDutyWebhookSecretName: logicalId(
        'AWS::SecretsManager::Secret',
        'IngressSourcesPagerdutyWebhookSecret',
      ),
    };
    for (const [output, secret] of Object.entries(secrets)) {
      expect(JSON.stringify(outputs[output]?.Value), output).toContain(`"Ref":"${secret}"`);
      expect(outputs[output]?.Description, output).toMatch(/\{.*".*".*\}/);
    }
  });

  it('has no model secret output with Bedrock, which needs no key', () => {
    const bedrock = templateOf({ config: { model: { provider: 'bedrock' } } }).toJSON().Outputs as Record<
      string,
      unknown
    >;

    expect(bedrock.ModelCredentialsSecretName).toBeUndefined();
    expect(bedrock.SlackCredentialsSecretName).toBeDefined();
  });

  it("gives the inbox's dead-letter queue and each workflow's state machine", () => {
    template.hasOutput('InboxDeadLetterQueueUrl', {
      Value: { Ref: logicalId('AWS::SQS::Queue', 'InboxDeadLetters') },
    });
    const bug = logicalId('AWS::StepFunctions::StateMachine', 'BugInvestigation');
    template.hasOutput('BugInvestigationStateMachineArn', { Value: { Ref: bug } });
    template.hasOutput('RequirementsInterviewStateMachineArn', {
      Value: Match.objectLike({ Ref: Match.anyValue() }),
    });
  });

  it("names a state machine's output after its workflow, in PascalCase", () => {
    template.hasOutput('BugInvestigationStateMachineArn', {
      Value: { Ref: logicalId('AWS::StepFunctions::StateMachine', 'BugInvestigation') },
    });
    template.hasOutput('SlaTrackingStateMachineArn', {
      Value: { Ref: logicalId('AWS::StepFunctions::StateMachine', 'SlaTracking') },
    });
  });
});
