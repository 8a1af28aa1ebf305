import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import Anthropic from '@anthropic-ai/sdk';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { WebClient } from '@slack/web-api';
import { GitHubCredentials } from '../../lambdas/adapters/github.ts';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import type { AnyWorkflowModule } from '../../statemachines/workflow-module.ts';
import type { SlackAgentsConfig } from '../config.ts';
import { isModuleEnabled, isPlaceholderId } from '../config-checks.ts';
import { buildSlackManifest } from '../slack-manifest.ts';
import { secretsOf } from './deploy-steps.ts';
import { checkGitHub } from './github-checks.ts';
import { checkMcp } from './mcp-checks.ts';

/**
 * The preflight's live part, with the deploying account's credentials: the deployed stack's
 * secrets exist and are filled, the Slack token has the manifest's scopes and sees the
 * configured channels and user groups, the GitHub App is installed on each configured
 * repository with the permissions the agents need, the model answers, and each MCP server
 * lists its tools (which of them wait for an approval). Real SDK clients
 * throughout; their endpoints come from the usual settings (`AWS_ENDPOINT_URL_*`,
 * `SLACK_API_URL`, `ANTHROPIC_BASE_URL`, `github.baseUrl`), which is how a test points them at
 * the sandbox's emulators. Each problem names its fix.
 */

export interface LiveReport {
  readonly problems: string[];
  /** What was checked and found right, one line each. */
  readonly passed: string[];
}

export async function livePreflight(
  config: SlackAgentsConfig,
  stackName: string,
  env: NodeJS.ProcessEnv = process.env,
  modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES,
): Promise<LiveReport> {
  const report: LiveReport = { problems: [], passed: [] };
  const outputs = await stackOutputs(stackName, report);
  if (outputs === undefined) return report;
  const secrets = await readSecrets(config, outputs, report, modules);
  const slack = secrets.get('SlackCredentialsSecretName') as { botToken?: string } | undefined;
  if (slack?.botToken?.startsWith('xoxb-')) await checkSlack(config, slack.botToken, env, modules, report);
  const github = secrets.get('GitHubCredentialsSecretArn');
  if (github !== undefined) await checkGitHub(config, github, report, modules);
  await checkModel(
    config,
    secrets.get('ModelCredentialsSecretName') as { apiKey?: string } | undefined,
    env,
    report,
  );
  await checkMcp(config.mcp, report);
  return report;
}

async function stackOutputs(stackName: string, report: LiveReport): Promise<Map<string, string> | undefined> {
  try {
    const { Stacks } = await new CloudFormationClient({}).send(
      new DescribeStacksCommand({ StackName: stackName }),
    );
    const outputs = new Map(
      (Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
    );
    report.passed.push(`stack ${stackName}: ${outputs.size} outputs`);
    return outputs;
  } catch (error) {
    report.problems.push(
      `stack ${stackName}: not found with these credentials (${errorName(error)}): run npx cdk deploy, or set AWS_PROFILE/AWS_REGION to the account and region deployed to`,
    );
    return undefined;
  }
}

/** What a filled secret looks like, by its stack output; a generated value only must have been replaced. */
const FILLED: Record<string, (value: Record<string, unknown>) => string | undefined> = {
  SlackCredentialsSecretName: (v) =>
    typeof v.botToken === 'string' && v.botToken.startsWith('xoxb-') && typeof v.signingSecret === 'string'
      ? undefined
      : "botToken must be the Bot User OAuth Token (xoxb-...) and signingSecret the app's Signing Secret",
  ModelCredentialsSecretName: (v) =>
    typeof v.apiKey === 'string' && v.apiKey.startsWith('sk-ant-')
      ? undefined
      : 'apiKey must be an Anthropic API key (sk-ant-...)',
  GitHubCredentialsSecretArn: (v) =>
    GitHubCredentials.safeParse(v).success
      ? undefined
      : 'expected {"appId","installationId","privateKey"} of the GitHub App, or {"token"}',
};

async function readSecrets(
  config: SlackAgentsConfig,
  outputs: ReadonlyMap<string, string>,
  report: LiveReport,
  modules: readonly AnyWorkflowModule[],
): Promise<Map<string, Record<string, unknown>>> {
  const client = new SecretsManagerClient({});
  const values = new Map<string, Record<string, unknown>>();
  for (const { output, content } of secretsOf(config, modules)) {
    const id = outputs.get(output);
    if (id === undefined) {
      report.problems.push(`${output}: not an output of the stack: deploy the stack with this configuration`);
      continue;
    }
    const fill = `aws secretsmanager put-secret-value --secret-id "${id}" --secret-string '${content}'`;
    try {
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: id }));
      const value = JSON.parse(SecretString ?? '') as Record<string, unknown>;
      const placeholder = Object.entries(value).find(
        ([, v]) => typeof v === 'string' && v.startsWith('REPLACE_WITH_'),
      );
      const shape = FILLED[output]?.(value);
      const described = await client.send(new DescribeSecretCommand({ SecretId: id }));
      const replaced = Object.keys(described.VersionIdsToStages ?? {}).length > 1;
      const problem = placeholder
        ? `${placeholder[0]} is still the placeholder`
        : (shape ??
          (FILLED[output] === undefined && mustReplace(output) && !replaced
            ? 'still holds the generated value'
            : undefined));
      if (problem === undefined) {
        values.set(output, value);
        report.passed.push(`${output}: filled`);
      } else report.problems.push(`${output} (${id}): ${problem}: ${fill}`);
    } catch (error) {
      report.problems.push(
        `${output} (${id}): cannot be read (${errorName(error)}): check it exists and these credentials may read it; ${fill}`,
      );
    }
  }
  return values;
}

/** Secrets the operator fills: their generated value is only a stand-in. */
function mustReplace(output: string): boolean {
  return output !== 'GitHubWebhookSecretName';
}

async function checkSlack(
  config: SlackAgentsConfig,
  token: string,
  env: NodeJS.ProcessEnv,
  modules: readonly AnyWorkflowModule[],
  report: LiveReport,
): Promise<void> {
  const slack = new WebClient(token, {
    ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}),
    retryConfig: { retries: 0 },
  });
  let auth: Awaited<ReturnType<WebClient['auth']['test']>>;
  try {
    auth = await slack.auth.test();
  } catch (error) {
    report.problems.push(
      `Slack: auth.test fails (${slackError(error)}): put the app's current Bot User OAuth Token in the Slack secret`,
    );
    return;
  }
  report.passed.push(`Slack: the bot is ${auth.user_id} in ${auth.team}`);
  const required = buildSlackManifest({ config, modules }).oauth_config.scopes.bot;
  const granted = new Set(auth.response_metadata?.scopes ?? []);
  const missing = required.filter((scope) => !granted.has(scope));
  if (missing.length > 0)
    report.problems.push(
      `Slack: the token lacks the scopes ${missing.join(', ')}: update the app from npm run slack:manifest and reinstall it to the workspace`,
    );
  else report.passed.push(`Slack: the token has the ${required.length} scopes of the manifest`);

  const enabled = modules.filter((module) => isModuleEnabled(module, config));
  const channels = new Map<string, string>();
  for (const module of enabled)
    for (const name of Object.keys(module.channels ?? {})) {
      const id = config.channels[name];
      if (id !== undefined) channels.set(`channels.${name}`, id);
    }
  // conversations.history needs only the manifest's channels:history, and says both whether
  // the channel exists and whether the bot is in it.
  for (const [path, id] of channels) {
    try {
      await slack.conversations.history({ channel: id, limit: 1 });
      report.passed.push(`${path}: ${id}, the bot is in it`);
    } catch (error) {
      const code = slackError(error);
      report.problems.push(
        code === 'not_in_channel'
          ? `${path}: the bot is not in ${id}: /invite @${auth.user} in that channel`
          : `${path}: ${id} (${code}): set the channel's id (its details in Slack, at the bottom)`,
      );
    }
  }
  for (const [role, members] of Object.entries(config.people)) {
    // A sandbox id left here belongs to a disabled workflow: the configuration refuses it elsewhere.
    for (const group of members.groups.filter((id) => !isPlaceholderId(id))) {
      try {
        await slack.usergroups.users.list({ usergroup: group });
        report.passed.push(`people.${role}: user group ${group}`);
      } catch (error) {
        report.problems.push(
          `people.${role}: user group ${group} (${slackError(error)}): set the id from usergroups.list (docs/deploy.md, "User group ids")`,
        );
      }
    }
  }
}

async function checkModel(
  config: SlackAgentsConfig,
  secret: { apiKey?: string } | undefined,
  env: NodeJS.ProcessEnv,
  report: LiveReport,
): Promise<void> {
  const request = {
    model: config.model.id,
    max_tokens: 1,
    messages: [{ role: 'user' as const, content: 'ping' }],
  };
  try {
    if (config.model.provider === 'bedrock') {
      const baseURL = env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME;
      await new AnthropicBedrock({ maxRetries: 0, ...(baseURL ? { baseURL } : {}) }).messages.create(request);
    } else {
      if (secret?.apiKey === undefined) return;
      const baseURL = env.ANTHROPIC_BASE_URL;
      await new Anthropic({
        apiKey: secret.apiKey,
        maxRetries: 0,
        ...(baseURL ? { baseURL } : {}),
      }).messages.create(request);
    }
    report.passed.push(`model: ${config.model.provider} answers with ${config.model.id}`);
  } catch (error) {
    const fix =
      config.model.provider === 'bedrock'
        ? "enable the model (or its inference profile) in the Bedrock console of the stack's region"
        : 'check the API key and that it may use this model (Anthropic console)';
    report.problems.push(`model ${config.model.id}: ${errorName(error)}: ${fix}`);
  }
}

export function errorName(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0]}`;
  return String(error);
}

function slackError(error: unknown): string {
  const data = (error as { data?: { error?: string } }).data;
  return data?.error ?? errorName(error);
}
