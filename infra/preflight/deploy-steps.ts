import type { SlackAgentsConfig } from '../config.ts';

/**
 * The deploy steps that remain after a static preflight passes, for this configuration: the
 * secrets its stack creates (docs/deploy.md, "Secrets"), and the steps only its options need
 * (CodeBuild's GitHub source credentials with a repository, webhooks with GitHub or PagerDuty).
 */

interface Settings {
  readonly bugInvestigation?: { readonly enabled?: boolean; readonly repository?: string };
  readonly issuePipeline?: { readonly repository?: string };
  readonly incidentInvestigation?: {
    readonly enabled?: boolean;
    readonly services?: readonly { readonly pagerDutyServices: readonly string[] }[];
    readonly telemetry?: {
      readonly sources: {
        readonly datadog: { readonly enabled: boolean };
        readonly pagerduty: { readonly enabled: boolean };
      };
    };
  };
}

/** The secrets the stack creates under this configuration: stack output, and what goes in. */
export function secretsOf(config: SlackAgentsConfig): { output: string; content: string }[] {
  const settings = config as SlackAgentsConfig & Settings;
  const repository = settings.bugInvestigation?.repository ?? settings.issuePipeline?.repository;
  return [
    { output: 'SlackCredentialsSecretName', content: '{"signingSecret":"<32 hex>","botToken":"xoxb-..."}' },
    ...(config.model.provider === 'anthropic'
      ? [{ output: 'ModelCredentialsSecretName', content: '{"apiKey":"sk-ant-..."}' }]
      : []),
    ...(repository
      ? [
          {
            output: 'GitHubCredentialsSecretArn',
            content:
              '{"appId":"123456","installationId":"7890123","privateKey":"-----BEGIN RSA PRIVATE KEY-----..."}',
          },
        ]
      : []),
    ...(pagerDutyServices(config)
      ? [
          {
            output: 'PagerDutyWebhookSecretName',
            content: '{"secret":"<the V3 subscription signing secret>"}',
          },
        ]
      : []),
    ...(incidentTelemetry(config)?.sources.datadog.enabled
      ? [{ output: 'DatadogCredentialsSecretArn', content: '{"apiKey":"<32 hex>","appKey":"<40 hex>"}' }]
      : []),
    ...(incidentTelemetry(config)?.sources.pagerduty.enabled
      ? [{ output: 'PagerDutyApiCredentialsSecretArn', content: '{"token":"<REST API key>"}' }]
      : []),
  ];
}

/** The incident investigation's telemetry section, when the incident workflow is deployed. */
function incidentTelemetry(config: SlackAgentsConfig) {
  const incident = (config as SlackAgentsConfig & Settings).incidentInvestigation;
  return incident?.enabled === false ? undefined : incident?.telemetry;
}

/** Whether a service's PagerDuty incidents start investigations (the PagerDuty webhook is then needed). */
export function pagerDutyServices(config: SlackAgentsConfig): boolean {
  const incident = (config as SlackAgentsConfig & Settings).incidentInvestigation;
  return (
    incident?.enabled !== false && (incident?.services ?? []).some((s) => s.pagerDutyServices.length > 0)
  );
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
): string[] {
  const settings = config as SlackAgentsConfig & Settings;
  const repository = settings.bugInvestigation?.repository ?? settings.issuePipeline?.repository;
  const pagerDuty = (settings.incidentInvestigation?.services ?? []).some(
    (s) => s.pagerDutyServices.length > 0,
  );
  const steps = [
    'npx cdk bootstrap (once per account and region)',
    ...(repository
      ? [
          'aws codebuild import-source-credentials --server-type GITHUB --auth-type PERSONAL_ACCESS_TOKEN --token <token> (once per account and region, before the first deploy: the checks build clones the repository)',
        ]
      : []),
    `npx cdk deploy ${stackName}${contextArgument(source)}`,
    ...secretsOf(config).map(
      (secret) =>
        `aws secretsmanager put-secret-value --secret-id "$(out ${secret.output})" --secret-string '${secret.content}'`,
    ),
    `npm run slack:manifest --${configOption(source)} --request-url "$(out SlackRequestUrl)": paste it into the Slack app, then invite the bot to the configured channels`,
    ...(repository
      ? ['GitHub webhook: payload URL "$(out GitHubWebhookUrl)", the secret of GitHubWebhookSecretName']
      : []),
    ...(pagerDuty ? ['PagerDuty: a Generic Webhook (V3) subscription to "$(out PagerDutyWebhookUrl)"'] : []),
    `npm run preflight --${configOption(source)} --live (credentials of the account; checks the secrets, Slack, GitHub and the model)`,
    'Verify: docs/deploy.md, "Verify the install"',
  ];
  return steps.map((step, index) => `${index + 1}. ${step}`);
}
