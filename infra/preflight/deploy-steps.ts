import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import type { ModulePreflight, ModuleSecret } from '../../statemachines/module-preflight.ts';
import type { AnyWorkflowModule } from '../../statemachines/workflow-module.ts';
import type { SlackAgentsConfig } from '../config.ts';
import { isModuleEnabled } from '../config-checks.ts';

/**
 * The deploy steps that remain after a static preflight passes, for this configuration: the
 * secrets its stack creates (docs/deploy.md, "Secrets"), and the steps only its options need,
 * as the enabled modules declare them (`preflight`): CodeBuild's GitHub source credentials and
 * the GitHub webhook when one works on a repository, and each module's own (a PagerDuty webhook).
 */

/** What the enabled modules' deploys need (their `preflight`), in the modules' order. */
export function modulePreflights(
  config: SlackAgentsConfig,
  modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES,
): ModulePreflight[] {
  const settings = config as SlackAgentsConfig & Readonly<Record<string, unknown>>;
  return modules
    .filter((module) => isModuleEnabled(module, settings))
    .flatMap((module) => {
      const section = module.settings === undefined ? undefined : settings[module.settings.key];
      return module.preflight === undefined ? [] : [module.preflight(section)];
    });
}

/** The GitHub repositories the enabled modules work on, each once. */
export function repositoriesOf(preflights: readonly ModulePreflight[]): string[] {
  return [...new Set(preflights.flatMap((preflight) => preflight.repositories ?? []))];
}

/** The secrets the stack creates under this configuration: stack output, and what goes in. */
export function secretsOf(
  config: SlackAgentsConfig,
  modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES,
): ModuleSecret[] {
  const preflights = modulePreflights(config, modules);
  const secrets = [
    { output: 'SlackCredentialsSecretName', content: '{"signingSecret":"<32 hex>","botToken":"xoxb-..."}' },
    ...(config.model.provider === 'anthropic'
      ? [{ output: 'ModelCredentialsSecretName', content: '{"apiKey":"sk-ant-..."}' }]
      : []),
    ...(repositoriesOf(preflights).length > 0
      ? [
          {
            output: 'GitHubCredentialsSecretArn',
            content:
              '{"appId":"123456","installationId":"7890123","privateKey":"-----BEGIN RSA PRIVATE KEY-----..."}',
          },
        ]
      : []),
    ...preflights.flatMap((preflight) => preflight.secrets ?? []),
  ];
  // One stack output is one secret, whichever modules need it.
  return secrets.filter((secret, index) => secrets.findIndex((s) => s.output === secret.output) === index);
}

/** Where the preflight read the configuration: `cdk deploy` has to be given the same one. */
export type ConfigSource =
  | { kind: 'cdk.json' }
  | { kind: 'file'; path: string }
  | { kind: 'text'; text: string }
  | { kind: 'env' };

/** `'...'` for a POSIX shell: the text as one word, its own single quotes kept. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * What `cdk deploy` needs to read the configuration the preflight read: nothing for cdk.json's
 * context, else `-c slackAgents=...` on one line (`cdk -c` keeps only a value's first line).
 */
export function contextArgument(source: ConfigSource): string {
  switch (source.kind) {
    case 'cdk.json':
      return '';
    case 'file':
      return ` -c slackAgents="$(node -p 'JSON.stringify(JSON.parse(require("fs").readFileSync(${JSON.stringify(source.path)}, "utf8")))')"`;
    case 'text':
      return ` -c slackAgents=${shellQuote(JSON.stringify(JSON.parse(source.text)))}`;
    case 'env':
      return ` -c slackAgents="$(node -p 'JSON.stringify(JSON.parse(process.env.SLACK_AGENTS_CONFIG))')"`;
  }
}

/** What the npm scripts that take `-c` need for the same configuration (they read SLACK_AGENTS_CONFIG themselves). */
function configOption(source: ConfigSource): string {
  if (source.kind === 'file') return ` -c ${shellQuote(source.path)}`;
  if (source.kind === 'text') return ` -c ${shellQuote(JSON.stringify(JSON.parse(source.text)))}`;
  return '';
}

export function remainingSteps(
  config: SlackAgentsConfig,
  stackName: string,
  source: ConfigSource = { kind: 'cdk.json' },
  modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES,
): string[] {
  const preflights = modulePreflights(config, modules);
  const repository = repositoriesOf(preflights).length > 0;
  const steps = [
    'npx cdk bootstrap (once per account and region)',
    ...(repository
      ? [
          'aws codebuild import-source-credentials --server-type GITHUB --auth-type PERSONAL_ACCESS_TOKEN --token <token> (once per account and region, before the first deploy: the checks build clones the repository)',
        ]
      : []),
    `npx cdk deploy ${stackName}${contextArgument(source)}`,
    ...secretsOf(config, modules).map(
      (secret) =>
        `aws secretsmanager put-secret-value --secret-id "$(out ${secret.output})" --secret-string '${secret.content}'`,
    ),
    `npm run slack:manifest --${configOption(source)} --request-url "$(out SlackRequestUrl)": paste it into the Slack app, then invite the bot to the configured channels`,
    ...(repository
      ? ['GitHub webhook: payload URL "$(out GitHubWebhookUrl)", the secret of GitHubWebhookSecretName']
      : []),
    ...preflights.flatMap((preflight) => preflight.steps ?? []),
    `npm run preflight --${configOption(source)} --live (credentials of the account; checks the secrets, Slack, GitHub and the model)`,
    'Verify: docs/deploy.md, "Verify the install"',
  ];
  return steps.map((step, index) => `${index + 1}. ${step}`);
}
