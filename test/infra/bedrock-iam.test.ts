import type { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBedrockModelId } from '../../infra/bedrock-model-id.ts';
import { parseConfig, type SlackAgentsConfigInput } from '../../infra/config.ts';
import { buildStack } from '../../infra/synth.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import {
  functionResource,
  resourcesOfType,
  sharedStack,
  statementsOf,
  templateOf,
  variablesOf,
} from './template.ts';

/**
 * Contract of `model.provider: bedrock`: the functions that call the model may invoke the
 * configured model and nothing else, no other function may, and no model secret exists.
 */

const PROFILE = 'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile';
const MODEL_IN_REGION = 'arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model';
const MODEL_ANY_REGION = 'arn:<AWS::Partition>:bedrock:*::foundation-model';
/** The functions that call the model: each workflow's agent turns and the channel responder. */
const MODEL_CALLERS = [
  'BugInvestigationAgentTurn',
  'RequirementsInterviewAgentTurn',
  'ChannelResponder',
  'IncidentAgentTurn',
];

const bedrockStatements = (template: Template, id: string) =>
  statementsOf(template, id).filter((s) => s.actions.some((a) => a.startsWith('bedrock:')));

const functionIds = (template: Template) =>
  Object.values(resourcesOfType(template, 'AWS::Lambda::Function')).flatMap((fn) => {
    const id = fn.Metadata?.['slack-agents:function'];
    return typeof id === 'string' ? [id] : [];
  });

const bedrock = (model: Record<string, string> = {}, rest: SlackAgentsConfigInput = {}) =>
  templateOf({ config: { model: { provider: 'bedrock', ...model }, ...rest } });

describe('model.provider bedrock in the stack', () => {
  // The first synthesis loads the CDK (slow on a busy machine): once, with the hook's own timeout.
  let defaultBedrock: Template;
  beforeAll(() => {
    defaultBedrock = bedrock();
  });

  it('grants the agent turns and the ChannelResponder InvokeModel on the default inference profile and its model only', () => {
    const template = defaultBedrock;
    for (const id of MODEL_CALLERS) {
      expect(bedrockStatements(template, id), id).toEqual([
        {
          actions: ['bedrock:InvokeModel'],
          resources: [
            `${PROFILE}/global.anthropic.claude-sonnet-5-5`,
            `${MODEL_ANY_REGION}/anthropic.claude-sonnet-5-5`,
          ],
        },
      ]);
    }
  });

  it('grants a foundation model id in the stack region only, with no inference profile', () => {
    const template = bedrock({ id: 'anthropic.claude-opus-4-1-20250805-v1:0' });
    expect(bedrockStatements(template, 'BugInvestigationAgentTurn')).toEqual([
      {
        actions: ['bedrock:InvokeModel'],
        resources: [`${MODEL_IN_REGION}/anthropic.claude-opus-4-1-20250805-v1:0`],
      },
    ]);
  });

  it('lets no other function call Bedrock', () => {
    const template = defaultBedrock;
    const callers = functionIds(template).filter((id) => bedrockStatements(template, id).length > 0);
    expect(callers.sort()).toEqual([...MODEL_CALLERS].sort());
  });

  it('adds the channel judge model to the ChannelResponder alone when the judge is on', () => {
    const template = bedrock(
      { id: 'us.anthropic.claude-sonnet-5-5' },
      { channelConversations: { useLlmJudge: true, judgeModelId: 'anthropic.claude-haiku-4-5' } },
    );
    expect(bedrockStatements(template, 'ChannelResponder')[0]?.resources).toEqual([
      `${PROFILE}/us.anthropic.claude-sonnet-5-5`,
      `${MODEL_ANY_REGION}/anthropic.claude-sonnet-5-5`,
      `${MODEL_IN_REGION}/anthropic.claude-haiku-4-5`,
    ]);
    expect(bedrockStatements(template, 'BugInvestigationAgentTurn')[0]?.resources).not.toContain(
      `${MODEL_IN_REGION}/anthropic.claude-haiku-4-5`,
    );
  });

  it('creates no model secret and reads none: MODEL_SECRET_ARN is absent and no function reads a model key', () => {
    const template = defaultBedrock;
    const secrets = Object.values(resourcesOfType(template, 'AWS::SecretsManager::Secret')).map(
      (secret) => (secret.Properties.GenerateSecretString as { GenerateStringKey: string }).GenerateStringKey,
    );
    // Slack's signing secret and the webhook secrets (GitHub, PagerDuty): no model key.
    expect(secrets).toContain('signingSecret');
    expect(secrets).not.toContain('apiKey');
    for (const id of MODEL_CALLERS) {
      const [, fn] = functionResource(template, id);
      const variables = variablesOf(template, fn);
      expect(variables, id).not.toHaveProperty(ENV.modelSecretArn);
      expect(variables, id).toMatchObject({
        [ENV.modelProvider]: 'bedrock',
        [ENV.modelId]: 'global.anthropic.claude-sonnet-5-5',
      });
    }
    // An agent turn reads only Slack's secret (its live progress posts as the bot), no model key.
    const slackSecret = Object.entries(resourcesOfType(template, 'AWS::SecretsManager::Secret')).find(
      ([, secret]) =>
        (secret.Properties.GenerateSecretString as { GenerateStringKey: string }).GenerateStringKey ===
        'signingSecret',
    )?.[0];
    const secretReads = statementsOf(template, 'BugInvestigationAgentTurn').filter((s) =>
      s.actions.some((a) => a.startsWith('secretsmanager:')),
    );
    expect(secretReads.length).toBeGreaterThan(0);
    for (const read of secretReads)
      for (const resource of read.resources) expect(resource).toContain(String(slackSecret));
  });

  it('keeps the Anthropic default free of any Bedrock permission', () => {
    const template = templateOf();
    for (const id of functionIds(template)) expect(bedrockStatements(template, id), id).toEqual([]);
  });

  it('passes cdk-nag with the Bedrock grants, the profile model region wildcard acknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(
      sharedStack({ config: { model: { provider: 'bedrock' } } }),
    );
    const findings = report.violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
    );
    expect(findings).toEqual([]);
  });
});

describe('Bedrock model ids in the configuration', () => {
  it('defaults the Bedrock model to the global Sonnet 5.5 inference profile', () => {
    expect(parseConfig({ sandbox: true, model: { provider: 'bedrock' } }).model).toEqual({
      provider: 'bedrock',
      id: 'global.anthropic.claude-sonnet-5-5',
    });
    expect(parseConfig({ sandbox: true }).model).toEqual({ provider: 'anthropic', id: 'claude-sonnet-5-5' });
  });

  it('refuses an Anthropic API model id with the Bedrock provider, naming the field', () => {
    expect(() => parseConfig({ model: { provider: 'bedrock', id: 'claude-sonnet-5-5' } })).toThrow(
      /slackAgents\.model\.id: expected a Bedrock model id/,
    );
  });

  it('refuses at synth a judge model that Bedrock cannot serve when the judge is on', () => {
    expect(() =>
      buildStack({ config: { model: { provider: 'bedrock' }, channelConversations: { useLlmJudge: true } } }),
    ).toThrow(
      /ChannelResponder calls the model "claude-haiku-4-5": with model.provider bedrock, expected a Bedrock model id/,
    );
  });

  it('tells foundation model ids and inference profile ids apart', () => {
    expect(parseBedrockModelId('anthropic.claude-opus-4-1-20250805-v1:0')).toEqual({
      id: 'anthropic.claude-opus-4-1-20250805-v1:0',
      foundationModelId: 'anthropic.claude-opus-4-1-20250805-v1:0',
    });
    expect(parseBedrockModelId('eu.anthropic.claude-sonnet-5-5')).toEqual({
      id: 'eu.anthropic.claude-sonnet-5-5',
      foundationModelId: 'anthropic.claude-sonnet-5-5',
      geography: 'eu',
    });
    expect(parseBedrockModelId('mars.anthropic.claude-sonnet-5-5')).toBeUndefined();
    expect(parseBedrockModelId('meta.llama3-70b-instruct-v1:0')).toBeUndefined();
    expect(parseBedrockModelId('claude-sonnet-5-5')).toBeUndefined();
  });
});
