import * as z from 'zod';
import { ChannelSettingsSchema } from '../lambdas/workflows/channel-conversations/model.ts';

/**
 * Stack configuration: read from the CDK context key `slackAgents` (an object, or its JSON
 * text when given with `cdk synth -c slackAgents='{...}'`) or passed as stack props, and
 * validated here so a typo fails the synth with the field's name instead of deploying a
 * stack that silently ignores it.
 */

/** The CDK context key holding the configuration object. */
export const CONFIG_CONTEXT_KEY = 'slackAgents';

/** Slack ids are upper-case letters, digits and (in our placeholders) underscores. */
const SlackChannelId = z
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

const Channels = z
  .object({
    /**
     * Where people report bugs; a top-level message starts a bug investigation (seed 000).
     * @default 'C_BUG_REPORTS' (a placeholder: set the real channel id before deploying)
     */
    bugReports: SlackChannelId.default('C_BUG_REPORTS'),
    /**
     * Where the bot posts investigation summaries for developers.
     * @default 'C_BUG_SUMMARIES' (a placeholder: set the real channel id before deploying)
     */
    bugSummaries: SlackChannelId.default('C_BUG_SUMMARIES'),
    /**
     * Where escalations to developers go.
     * @default 'C_DEVELOPERS' (a placeholder: set the real channel id before deploying)
     */
    developers: SlackChannelId.default('C_DEVELOPERS'),
    /**
     * The channel the `kernel_probe` test workflow listens to. Only the sandbox uses it.
     * @default - none (the probe workflow refuses to build without it)
     */
    probe: SlackChannelId.optional(),
  })
  // Room for more: further workflows name their channels here (channel name -> channel id).
  .catchall(SlackChannelId);

/** Channel conversations' settings; the Router reads all but `enabled` from CHANNEL_CONVERSATIONS. */
export const ChannelConversationsConfig = ChannelSettingsSchema.extend({
  /** Answer mentions in channels no workflow owns. @default true */
  enabled: z.boolean().default(true),
});
export type ChannelConversationsConfig = z.infer<typeof ChannelConversationsConfig>;

export const SlackAgentsConfigSchema = z.strictObject({
  /**
   * Slack channels by the name workflows use for them.
   * @default { bugReports: 'C_BUG_REPORTS', bugSummaries: 'C_BUG_SUMMARIES', developers: 'C_DEVELOPERS' }
   */
  channels: Channels.prefault({}),
  /**
   * The bot's own Slack user id, so the Router ignores the bot's messages (I5).
   * @default 'U_BOT' (a placeholder: set the bot user id of your Slack app)
   */
  botUserId: SlackUserId.default('U_BOT'),
  /**
   * How long a workflow waits for the reporter before taking its timeout path.
   * @default 7200 (2 hours, seed 000)
   */
  reporterWaitSeconds: z.number().int().positive().default(7200),
  /**
   * How long a workflow waits for developers before taking its timeout path.
   * @default 172800 (48 hours, seed 000)
   */
  developerWaitSeconds: z.number().int().positive().default(172_800),
  /**
   * The model agent turns use. (`claude-sonnet-4-5`, the earlier default, reaches end of life
   * on 2026-11-30 by the Anthropic SDK's deprecation table.)
   * @default { provider: 'anthropic', id: 'claude-sonnet-5-5' }
   */
  model: z
    .strictObject({
      /** @default 'anthropic' */
      provider: z.enum(['anthropic', 'bedrock']).default('anthropic'),
      /** @default 'claude-sonnet-5-5' */
      id: z.string().min(1).default('claude-sonnet-5-5'),
    })
    .prefault({}),
  /**
   * Days after which finished conversations and their messages expire (DynamoDB TTL).
   * @default 90
   */
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
   * Deliveries of one inbox message before it moves to the dead-letter queue.
   * @default 5
   */
  inboxMaxReceiveCount: z.number().int().min(1).max(1000).default(5),
  /**
   * The Slack user group paged on escalations (mentioned as `<!subteam^ID>`).
   * @default 'S_ONCALL' (a placeholder: set your on-call user group id)
   */
  onCallGroupId: z
    .string()
    .regex(/^S[A-Z0-9_]+$/, 'expected a Slack user group id such as S0123456789')
    .default('S_ONCALL'),
  /**
   * SLA tracking of escalations: minutes a developer has to acknowledge, per severity, and
   * how many reminders (each escalating one level) are posted before it gives up.
   * @default { acknowledgeMinutes: { critical: 15, high: 60, medium: 240, low: 1440 }, maxReminders: 3 }
   */
  sla: z
    .strictObject({
      acknowledgeMinutes: z
        .strictObject({
          critical: z.number().int().positive().default(15),
          high: z.number().int().positive().default(60),
          medium: z.number().int().positive().default(240),
          low: z.number().int().positive().default(1440),
        })
        .prefault({}),
      maxReminders: z.number().int().min(0).max(10).default(3),
    })
    .prefault({}),
  /**
   * Agent turns after which a bug investigation hands its conversation to a fresh execution
   * (continue-as-new), far below Step Functions' 25,000-event history limit.
   * @default 40
   */
  continueAsNewAfterTurns: z.number().int().min(2).max(500).default(40),
  /**
   * The requirements interview (seed 004): the confidence its clarification needs before the
   * PRD is written, the most clarification turns before it proceeds anyway (listing the open
   * unknowns), and how long it waits for an answer (once before a reminder, once after it).
   * Besides `/prd <idea>`, a top-level mention of the bot starts an interview when its text
   * (the mention taken out) begins with one of `mentionKeywords` (`@bot idea: dark mode`), or
   * when it is in one of `mentionChannels`; any other mention is a channel conversation.
   * @default { confidenceThreshold: 95, maxClarificationTurns: 5, answerWaitSeconds: 86400, mentionKeywords: ['prd', 'idea', 'product idea', 'feature idea', 'requirements'], mentionChannels: [] }
   */
  requirementsInterview: z
    .strictObject({
      /** @default 95 */
      confidenceThreshold: z.number().int().min(1).max(100).default(95),
      /** @default 5 */
      maxClarificationTurns: z.number().int().min(1).max(20).default(5),
      /** @default 86400 (24 hours) */
      answerWaitSeconds: z.number().int().positive().default(86_400),
      /** @default ['prd', 'idea', 'product idea', 'feature idea', 'requirements'] */
      mentionKeywords: z
        .array(z.string().trim().min(1))
        .default(['prd', 'idea', 'product idea', 'feature idea', 'requirements']),
      /** Channels where every top-level mention of the bot starts an interview. @default [] */
      mentionChannels: z.array(SlackChannelId).default([]),
    })
    .prefault({}),
  /**
   * Channel conversations (seed 002): after a mention, the bot stays attentive in the channel.
   * @default { enabled: true, timeoutSeconds: 120, followupWindowSeconds: 60, useLlmJudge: false, judgeModelId: 'claude-haiku-4-5' }
   */
  channelConversations: ChannelConversationsConfig.prefault({}),
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
});

/** The validated configuration, every default applied. */
export type SlackAgentsConfig = z.infer<typeof SlackAgentsConfigSchema>;
/** What callers may pass: every field optional. */
export type SlackAgentsConfigInput = z.input<typeof SlackAgentsConfigSchema>;

export class InvalidConfigError extends Error {
  override readonly name = 'InvalidConfigError';
  constructor(
    readonly issues: readonly string[],
    options: { cause: unknown },
  ) {
    super(`invalid ${CONFIG_CONTEXT_KEY} configuration: ${issues.join('; ')}`, options);
  }
}

/**
 * Validates a raw configuration (context value or props) and applies the defaults.
 * JSON text is accepted because `cdk -c key=value` passes context values as strings.
 * @throws InvalidConfigError naming each bad field, e.g. `slackAgents.reporterWaitSeconds: ...`
 */
export function parseConfig(raw: unknown = {}): SlackAgentsConfig {
  const value = typeof raw === 'string' ? parseJsonText(raw) : (raw ?? {});
  const result = SlackAgentsConfigSchema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) => {
    const field = [CONFIG_CONTEXT_KEY, ...issue.path.map(String)].join('.');
    // A typo'd field name is the likeliest mistake: name each unknown field on its own.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${field}.${key}: unknown field`);
    return [`${field}: ${issue.message}`];
  });
  throw new InvalidConfigError(issues, { cause: result.error });
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidConfigError([`${CONFIG_CONTEXT_KEY}: expected a JSON object`], { cause });
  }
}
