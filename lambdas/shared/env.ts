/**
 * Environment variable names shared by the stack (which sets them), the Lambda handlers
 * (which read them) and the sandbox (which sets them for the in-process handlers).
 * One list, so a rename cannot leave one side behind. A workflow's own variables are in its
 * folder (e.g. lambdas/workflows/channel-conversations/env.ts).
 */
export const ENV = {
  /** DynamoDB table holding conversations, messages, thread anchors, waits and ledgers. */
  tableName: 'TABLE_NAME',
  /** URL of the SQS FIFO inbox the ingress writes to and the Router reads from. */
  inboxQueueUrl: 'INBOX_QUEUE_URL',
  /** URL of the inbox's dead-letter queue, where the Router sets aside records it can never route. */
  inboxDeadLetterQueueUrl: 'INBOX_DLQ_URL',
  /**
   * JSON array of workflow registrations (see `WorkflowRegistrations` in kernel/workflows.ts),
   * their state machines' ARNs in `WORKFLOW_STATE_MACHINES`.
   */
  workflows: 'WORKFLOWS',
  /** JSON `{ workflow: stateMachineArn }` of the registrations in WORKFLOWS (Router, Reconciler). */
  workflowStateMachines: 'WORKFLOW_STATE_MACHINES',
  /**
   * Path of the function's configuration file (`/opt/slack-agents/<digest>.json`, from the
   * stack's configuration layer): JSON `{ NAME: value }` of every variable whose value is known
   * at synth. Lambda's environment holds 4 KB in all; this file has no such limit. It is read
   * into `process.env` before the function's own code runs (lambdas/shared/config-file.ts).
   */
  configFile: 'SLACK_AGENTS_CONFIG_FILE',
  /** ARN of the Secrets Manager secret `{ "signingSecret": "...", "botToken": "..." }`. */
  slackSecretArn: 'SLACK_SECRET_ARN',
  /** ARN of the Secrets Manager secret with model credentials `{ "apiKey": "..." }`. */
  modelSecretArn: 'MODEL_SECRET_ARN',
  /** ARN of the Secrets Manager secret `{ "secret": "..." }` GitHub signs webhooks with (Ingress). */
  githubWebhookSecretArn: 'GITHUB_WEBHOOK_SECRET_ARN',
  /** Local override of the GitHub webhook secret (sandbox, development). Never set in AWS. */
  githubWebhookSecret: 'GITHUB_WEBHOOK_SECRET',
  /** ARN of the Secrets Manager secret `{ "secret": "..." }` PagerDuty signs V3 webhooks with (Ingress). */
  pagerdutyWebhookSecretArn: 'PAGERDUTY_WEBHOOK_SECRET_ARN',
  /** Local override of the PagerDuty webhook secret (sandbox, development). Never set in AWS. */
  pagerdutyWebhookSecret: 'PAGERDUTY_WEBHOOK_SECRET',
  /**
   * JSON `{ kind: label }` of the answer kinds the deployed workflows declare (`answerKinds`),
   * each with how a feedback acknowledgement names it (Router).
   */
  answerKinds: 'ANSWER_KINDS',
  /** JSON array of the slash commands some workflow handles, e.g. `["/prd"]` (Ingress). */
  slashCommands: 'SLASH_COMMANDS',
  /** JSON array of what each slash command takes, for its help (kernel/slash-command-help.ts) (Ingress). */
  slashCommandUsage: 'SLASH_COMMAND_USAGE',
  /**
   * URL of the SQS FIFO queue where the Router hands a repeated trigger of a running
   * conversation (an issue labelled again), for the workflow that owns it to answer where it runs.
   */
  retriggerQueueUrl: 'RETRIGGER_QUEUE_URL',
  /** The GitHub login the platform's token acts as (no App), so its own comments are ignored. */
  githubLogin: 'GITHUB_SELF_LOGIN',
  /** Its dead-letter queue (set on its consumer). */
  retriggerDeadLetterQueueUrl: 'RETRIGGER_DEAD_LETTER_QUEUE_URL',
  /** Name of the SlackPost function the Router invokes (asynchronously) for notices. */
  slackPostFunction: 'SLACK_POST_FUNCTION',
  /** Local override of the signing secret (sandbox, development). Never set in AWS. */
  slackSigningSecret: 'SLACK_SIGNING_SECRET',
  /** Local override of the bot token (sandbox, development). Never set in AWS. */
  slackBotToken: 'SLACK_BOT_TOKEN',
  /** Base URL of the Slack Web API, e.g. the sandbox's fake Slack. Default https://slack.com/api/ */
  slackApiUrl: 'SLACK_API_URL',
  /**
   * Multiplies the waits between the Slack clients' retries of one call (a positive number;
   * absent: 1, Slack's own pacing). Never set in AWS: the sandbox sets its time scale here, so
   * a fake Slack outage is retried on the same shrunk time as the workflow's waits.
   */
  slackRetryTimeScale: 'SLACK_RETRY_TIME_SCALE',
  /** The bot's own Slack user id, so its own messages are ignored. */
  botUserId: 'SLACK_BOT_USER_ID',
  /** `off` stops agent turns from showing their live progress in Slack (docs/live-progress.md). Default on. */
  liveProgress: 'LIVE_PROGRESS',
  /**
   * Milliseconds a turn works before its timeline is posted (a quicker turn shows its answer
   * alone). Absent: 3000. The sandbox's tests of timelines set 0.
   */
  liveProgressAfterMs: 'LIVE_PROGRESS_AFTER_MS',
  /** JSON map of tool name -> Lambda function name the AgentTurn invokes (AgentTurn only). */
  toolFunctions: 'TOOL_FUNCTIONS',
  /** Anthropic API key override (sandbox, development); in AWS it comes from MODEL_SECRET_ARN. */
  anthropicApiKey: 'ANTHROPIC_API_KEY',
  /** Anthropic API base URL override (the sandbox's demo model, a test's scripted model). */
  anthropicBaseUrl: 'ANTHROPIC_BASE_URL',
  /** Days after which finished conversations expire through the table's TTL attribute. */
  retentionDays: 'RETENTION_DAYS',
  /** JSON object of the configured roles: role -> `{ groups, users }` (see kernel/people.ts). */
  people: 'PEOPLE',
  /** JSON object of who may decide what: decision kind -> roles (see kernel/people.ts). */
  approvals: 'APPROVALS',
  /** JSON object of the configured Slack channels: channel name (e.g. `bugReports`) -> channel id. */
  channels: 'CHANNELS',
  /** Model provider for agent turns: `anthropic` or `bedrock`. */
  modelProvider: 'MODEL_PROVIDER',
  /**
   * Model id for agent turns: the Anthropic API's (`claude-sonnet-5-5`), or with Bedrock a
   * Bedrock model id or inference profile id (`global.anthropic.claude-sonnet-5-5`).
   */
  modelId: 'MODEL_ID',
  /** Bedrock Runtime endpoint override (the sandbox's emulator); unset in AWS. The AWS SDKs' naming. */
  bedrockEndpointUrl: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
  /** Retries of transient model API failures per call (AgentTurn; default 2, 0 against fakes). */
  modelMaxRetries: 'MODEL_MAX_RETRIES',
  /** Seconds one agent turn may run before it returns `continue` (AgentTurn; default 240, capped by the Lambda timeout). */
  agentTurnBudgetSeconds: 'AGENT_TURN_BUDGET_SECONDS',
  /** Tool calls one agent turn may make before it returns `continue` (AgentTurn; default 25). */
  agentMaxToolCalls: 'AGENT_MAX_TOOL_CALLS',
  /** JSON `AgentLimits` (lambdas/agents/limits.ts): the bounds of every agent loop; absent: the defaults. */
  agentLimits: 'AGENT_LIMITS',
  /**
   * What reaches prompts of text from people with no role in a workflow: `label` (wrapped and
   * marked as unverified outside content) or `omit` (left out); absent: `label`
   * (lambdas/kernel/people-text.ts).
   */
  untrustedText: 'UNTRUSTED_TEXT',
  /** JSON `RedactionSettings` (lambdas/redaction/config.ts): the personal data classes and allow list; absent: the defaults. */
  redaction: 'REDACTION',
  /** JSON `McpSettings` (lambdas/mcp/config.ts): the MCP servers the agents may call; absent: none. */
  mcp: 'MCP_SERVERS',
  /** JSON `{ id, version }` of the Bedrock Guardrail applied to every model call (Bedrock only); absent: none. */
  bedrockGuardrail: 'BEDROCK_GUARDRAIL',
  /**
   * JSON `ModelPrice` (lambdas/agents/pricing.ts) of MODEL_ID: what each model call costs, for
   * the ledger's estimated cost and the money limits. The stack resolves it from `modelPrices`
   * and the defaults; absent: calls are not priced (and money limits cannot be held).
   */
  modelPrice: 'MODEL_PRICE',
  /** JSON `ReconcilerSettings` (lambdas/kernel/reconcile.ts): when the reconciler repairs or fails a conversation. */
  reconciler: 'RECONCILER',
  /** Powertools service name (the `service` key of every log line and metric). */
  powertoolsServiceName: 'POWERTOOLS_SERVICE_NAME',
  /** Powertools metrics namespace in CloudWatch. */
  powertoolsMetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

export class MissingConfigurationError extends Error {
  override readonly name = 'MissingConfigurationError';
  constructor(readonly variable: string) {
    super(`environment variable ${variable} is not set`);
  }
}

export function requireEnv(name: EnvName | (string & {}), env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value === '') throw new MissingConfigurationError(name);
  return value;
}
