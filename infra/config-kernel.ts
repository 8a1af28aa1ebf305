import * as z from 'zod';
import { AgentLimits } from '../lambdas/agents/limits.ts';
import { ModelPrices } from '../lambdas/agents/pricing.ts';
import { ProtectedPathsSettings } from '../lambdas/changes/protected-paths.ts';
import { UntrustedTextMode } from '../lambdas/kernel/people-text.ts';
import { ReconcilerSettings } from '../lambdas/kernel/reconcile.ts';
import { BEDROCK_ID_EXPECTED, DEFAULT_BEDROCK_MODEL_ID, parseBedrockModelId } from './bedrock-model-id.ts';
import { McpConfigFields } from './config-mcp.ts';
import { RedactionConfigFields } from './config-redaction.ts';
import { MonitoringSettingsSchema } from './constructs/monitoring.ts';
import { DeploymentSettingsSchema } from './deployment-settings.ts';

/** The stack configuration's kernel fields: every key outside channels, people, approvals and the modules' sections. */

/** Slack ids are upper-case letters, digits and (in our placeholders) underscores. */
export const SlackChannelId = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]+$/, 'expected a Slack channel id such as C0123456789');
const SlackUserId = z.string().regex(/^[UBW][A-Z0-9_]+$/, 'expected a Slack user id such as U0123456789');

/**
 * Log retention periods CloudWatch Logs accepts (`RetentionDays` in aws-cdk-lib/aws-logs).
 * Listed here so a bad value fails validation rather than the deployment.
 */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** The model id each provider uses when the configuration names none. */
const DEFAULT_MODEL_IDS = { anthropic: 'claude-sonnet-5-5', bedrock: DEFAULT_BEDROCK_MODEL_ID } as const;

/**
 * The kernel's fields. `channels` gets one defaulted field per channel a module declares;
 * each module with a configuration section adds it under its key (see `configSchema`).
 */
export const KernelConfigFields = {
  /**
   * This configuration is the offline sandbox's (`npm run dev`, the tests): its fake workspace
   * ids (`C_...`, `S_...`, `U_...`) are allowed, and `cdk deploy` refuses it. @default false
   */
  sandbox: z.boolean().default(false),
  /**
   * The CloudFormation stack's name (`cdk deploy` creates or updates this stack): one account
   * and region can hold several installs under different names.
   * @default 'SlackAgents'
   */
  stackName: z
    .string()
    .regex(
      /^[A-Za-z][A-Za-z0-9-]{0,127}$/,
      'expected a stack name: a letter, then letters, digits and hyphens (128 at most)',
    )
    .default('SlackAgents'),
  /**
   * The bot's own Slack user id, so the Router ignores the bot's messages. Leave it out: the
   * functions read it from Slack's `auth.test` with the bot token, once per cold start.
   * @default - read at run time (the sandbox: 'U_BOT')
   */
  botUserId: SlackUserId.optional(),
  /**
   * How long a workflow waits for the reporter before taking its timeout path.
   * @default 7200 (2 hours)
   */
  reporterWaitSeconds: z.number().int().positive().default(7200),
  /**
   * How long a workflow waits for developers before taking its timeout path.
   * @default 172800 (48 hours)
   */
  developerWaitSeconds: z.number().int().positive().default(172_800),
  /**
   * The model agent turns and channel conversations use. `anthropic`: the Anthropic API, `id`
   * an Anthropic model id, the key in the ModelCredentials secret. `bedrock`: Amazon Bedrock in
   * the stack's region with the functions' roles, `id` a Bedrock model id
   * (`anthropic.<model>`) or a cross-region inference profile id (`global.anthropic.<model>`,
   * `us.anthropic.<model>`...), see bedrock-model.ts; no model secret. (`claude-sonnet-4-5`,
   * the earlier default, reaches end of life on 2026-11-30 by the Anthropic SDK's deprecation table.)
   * @default { provider: 'anthropic', id: 'claude-sonnet-5-5' } (with bedrock: id 'global.anthropic.claude-sonnet-5-5')
   */
  model: z
    .strictObject({
      /** @default 'anthropic' */
      provider: z.enum(['anthropic', 'bedrock']).default('anthropic'),
      /** @default 'claude-sonnet-5-5', or 'global.anthropic.claude-sonnet-5-5' with bedrock */
      id: z.string().min(1).optional(),
    })
    .prefault({})
    .superRefine((model, context) => {
      if (model.provider === 'bedrock' && model.id !== undefined && !parseBedrockModelId(model.id)) {
        context.addIssue({ code: 'custom', path: ['id'], message: BEDROCK_ID_EXPECTED });
      }
    })
    .transform(({ provider, id }) => ({ provider, id: id ?? DEFAULT_MODEL_IDS[provider] })),
  /**
   * Model prices in USD per million tokens (`inputPerMillion`, `outputPerMillion`,
   * `cacheWritePerMillion`, `cacheReadPerMillion`, optionally a `longPrompt` band), by model
   * id, over the defaults of lambdas/agents/pricing.ts (the Claude API's list prices, dated
   * there). The configured `model.id` must have a price, here or there: the synth fails
   * otherwise, since the ledger's cost and the money limits (`agentLimits.maxConversationCostUsd`,
   * `agentLimits.maxDailyCostUsd`) could not be held. Set it for Bedrock when its rates differ.
   * @default {}
   */
  modelPrices: ModelPrices.default({}),
  /** Days after which finished conversations and their messages expire (DynamoDB TTL). @default 90 */
  retentionDays: z.number().int().positive().default(90),
  /**
   * How long the Lambda and Step Functions logs are kept, in days (a CloudWatch Logs period).
   * @default 90
   */
  logRetentionDays: z
    .number()
    .int()
    .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
      message: `expected one of ${LOG_RETENTION_DAYS.join(', ')}`,
    })
    .default(90),
  /**
   * The ingress function's reserved concurrency: requests (Slack, GitHub, PagerDuty, alarm
   * events) it handles at once at most, so a flood at its public Function URL cannot take the
   * account's whole Lambda concurrency, and other functions cannot starve it. Lambda keeps 100
   * of the account's quota unreserved: an account whose quota is below 100 + this refuses it
   * at deploy; `null` reserves none.
   * @default 50
   */
  ingressReservedConcurrency: z.number().int().min(1).max(1000).nullable().default(50),
  /** Deliveries of one inbox message before it moves to the dead-letter queue. @default 5 */
  inboxMaxReceiveCount: z.number().int().min(1).max(1000).default(5),
  /**
   * Alarms and the dashboard (infra/constructs/monitoring.ts): e-mail addresses subscribed to
   * the alarm topic, and the model latency alarm's threshold.
   * @default { alarmEmails: [], modelLatencyP90Ms: 60000 }
   */
  monitoring: MonitoringSettingsSchema.prefault({}),
  /**
   * How a deploy moves new conversations to the workflows' new versions (infra/deployment-settings.ts):
   * `strategy` (`all_at_once`, `canary`, `linear`), `percent` and `intervalMinutes` of a gradual
   * shift, and `alarms` (names) that roll it back. Running conversations keep their version.
   * @default { strategy: 'all_at_once', alarms: [] }
   */
  deployment: DeploymentSettingsSchema.prefault({}),
  /**
   * CloudWatch alarms whose state changes an EventBridge rule delivers to the ingress (for the
   * workflows' `alert` triggers): exact alarm names and name prefixes. Both empty: no rule.
   * @default { names: [], namePrefixes: [] }
   */
  alarms: z
    .strictObject({
      /** @default [] */
      names: z.array(z.string().min(1).max(255)).default([]),
      /** @default [] */
      namePrefixes: z.array(z.string().min(1).max(255)).default([]),
    })
    .prefault({}),
  /**
   * The bounds of every agent loop, held by code (lambdas/agents/limits.ts): turns in a row
   * that run out of their budget, tokens and time per conversation, tool rounds per turn, a
   * model call's timeout, the longest `retry-after` waited out, and the state machine's
   * retries of an unavailable model.
   * @default see `AgentLimits`
   */
  agentLimits: AgentLimits.prefault({}),
  /**
   * Text from people with no role in a workflow (a third party in a Slack thread, a GitHub
   * user without write access to the repository): `label` hands it to the agents wrapped and
   * marked as unverified outside content (`"verified": false`), `omit` leaves it out of their
   * prompts (the history keeps it for people). Either way it is data, never instructions.
   * @default 'label'
   */
  untrustedText: UntrustedTextMode.default('label'),
  ...RedactionConfigFields,
  ...McpConfigFields,
  /**
   * Live progress: each agent turn shows its tool calls as a task timeline in the
   * conversation's thread while it works (a streamed message, or one message updated in
   * place), and sets the status of assistant threads. `false` turns it off: people then see
   * only the answers. See docs/live-progress.md.
   * @default true
   */
  liveProgress: z.boolean().default(true),
  /**
   * The reconciler: a sweep every `everyMinutes` that starts conversations the Router could
   * not start, and wakes waits with a message pending for `olderThanSeconds`; after
   * `maxRepairs` failed sweeps the conversation is failed and its owner told.
   * @default { everyMinutes: 5, olderThanSeconds: 300, maxRepairs: 3 }
   */
  reconciler: ReconcilerSettings.extend({
    everyMinutes: z.number().int().min(1).max(1440).default(5),
  }).prefault({}),
  /**
   * GitHub, for workflows whose agents work on a repository: the REST API base URL
   * (`https://HOST/api/v3` for GitHub Enterprise Server; the sandbox sets its emulator's), and
   * with a token instead of an App, the login the token acts as (`login`): the platform's own
   * comments then come back as a user's, and the Router ignores them (an App's are a bot's).
   */
  github: z
    .strictObject({
      baseUrl: z.url({ protocol: /^https?$/ }).default('https://api.github.com'),
      login: z
        .string()
        .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'expected a GitHub login, e.g. acme-agents')
        .optional(),
    })
    .prefault({}),
  /**
   * Protected paths, one setting for every workflow that writes code (the bug workflow's fixer,
   * the issue pipeline): a change touching one waits for an approver or is refused, as each
   * workflow's `protectedChanges` says (docs/security-code-changes.md). `add`: patterns
   * protected besides the defaults; `remove`: default patterns not protected here, each written
   * exactly as in the default list (lambdas/changes/default-protected-paths.ts).
   * @default { add: [], remove: [] } (the defaults: what runs during install, build, test, checkout or deploy, and what configures the checks)
   */
  protectedPaths: ProtectedPathsSettings,
};
