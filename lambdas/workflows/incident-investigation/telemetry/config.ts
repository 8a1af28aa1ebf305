import * as z from 'zod';
import { TELEMETRY_ENV } from './environment.ts';
import { InvalidTelemetryConfigurationError } from './errors.ts';

/**
 * The telemetry tools' configuration: the incident investigation's `telemetry` section (`incidentInvestigation.telemetry`), handed to
 * the tool Lambda as JSON in `TELEMETRY_CONFIG` (statemachines/incident-investigation/telemetry-access.ts). One
 * schema for the stack (validated at synth) and the Lambda (validated at its first call).
 */

const ServiceName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a service name: lower-case letters, digits, ".", "_", "-"');

/** One service: where its telemetry is, and what it calls (the service map). */
export const TelemetryService = z.strictObject({
  name: ServiceName,
  /** What it does, for the model. */
  description: z.string().max(500).optional(),
  /** Its CloudWatch log groups (names). @default [] */
  logGroups: z.array(z.string().min(1).max(512)).max(10).default([]),
  /** Its CloudWatch metrics: one namespace, the dimensions that select the service, the metric names. */
  metrics: z
    .strictObject({
      namespace: z.string().min(1).max(255),
      dimensions: z.record(z.string().min(1), z.string().min(1)).default({}),
      names: z.array(z.string().min(1).max(255)).min(1).max(20),
    })
    .optional(),
  /** CloudFormation stacks whose updates are its deployments. @default [] */
  stacks: z.array(z.string().min(1).max(128)).max(10).default([]),
  /** Services (or external systems) it calls. @default [] */
  dependencies: z.array(z.string().min(1).max(128)).max(30).default([]),
  /** Its name in Datadog's `service:` tag and the Datadog metrics to offer. @default the name, no metrics */
  datadog: z
    .strictObject({
      service: z.string().min(1).optional(),
      metrics: z.array(z.string().min(1)).max(20).default([]),
    })
    .optional(),
});
export type TelemetryService = z.infer<typeof TelemetryService>;

const HttpsOrLocal = z.url({ protocol: /^https?$/ });

export const TelemetryConfig = z
  .strictObject({
    /** The services the tools may query; a query must name one. @default [] */
    services: z.array(TelemetryService).max(100).default([]),
    /** The widest time window of one query, in minutes; wider ones are narrowed to it. @default 360 */
    maxWindowMinutes: z.number().int().min(5).max(10_080).default(360),
    /** The window when a query gives none: the last this many minutes. @default 60 */
    defaultWindowMinutes: z.number().int().min(1).max(10_080).default(60),
    /** Log events fetched per query at most (what the analysis reads). @default 2000 */
    maxEvents: z.number().int().min(10).max(10_000).default(2000),
    /** Raw log lines shown to the model per result at most. @default 5 */
    maxExamples: z.number().int().min(0).max(20).default(5),
    /** Tokens (characters / 4) of one tool result at most. @default 1500 */
    outputTokenBudget: z.number().int().min(200).max(8000).default(1500),
    /** Queries per scope (per hypothesis per round); the next is refused (5). @default 5 */
    queriesPerScope: z.number().int().min(1).max(50).default(5),
    /** Logs Insights: how long to wait for a query to complete, in seconds. @default 20 */
    insightsTimeoutSeconds: z.number().int().min(1).max(120).default(20),
    /**
     * Model help for query_logs' templates (lambdas/log-analysis/template-review.ts): the few
     * templates seen least often are sent, in one batch per query, to the configured model
     * (`model.id`), which may name a better template or merge two; each template is asked about
     * once per function instance (cached by its text), and the call's tokens and cost are added
     * to the conversation's ledger. Off by default: the miner alone needs no model.
     */
    logTemplateReview: z
      .strictObject({
        /** @default false */
        enabled: z.boolean().default(false),
        /** Templates asked about per query at most (one model call per query). @default 8 */
        maxTemplates: z.number().int().min(1).max(20).default(8),
        /** Templates seen at most this many times in a query's events are the uncertain ones. @default 3 */
        maxEvidence: z.number().int().min(1).max(20).default(3),
        /** The call's `max_tokens`: the most output one review may cost. @default 1024 */
        maxOutputTokens: z.number().int().min(128).max(8192).default(1024),
      })
      .prefault({}),
    /** Data sources. CloudWatch (logs, metrics, CloudFormation deployments) is on by default. */
    sources: z
      .strictObject({
        cloudwatch: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
        /** Datadog's logs search and metrics query APIs (`https://api.datadoghq.eu` etc. per site). */
        datadog: z
          .strictObject({
            enabled: z.boolean().default(false),
            baseUrl: HttpsOrLocal.default('https://api.datadoghq.com'),
          })
          .prefault({}),
        /** PagerDuty's REST API, for incident details. */
        pagerduty: z
          .strictObject({
            enabled: z.boolean().default(false),
            baseUrl: HttpsOrLocal.default('https://api.pagerduty.com'),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .superRefine((config, context) => {
    const names = new Set<string>();
    for (const [i, service] of config.services.entries()) {
      if (names.has(service.name))
        context.addIssue({
          code: 'custom',
          path: ['services', i, 'name'],
          message: `${service.name} is listed twice`,
        });
      names.add(service.name);
    }
    if (config.defaultWindowMinutes > config.maxWindowMinutes)
      context.addIssue({
        code: 'custom',
        path: ['defaultWindowMinutes'],
        message: 'must not exceed maxWindowMinutes',
      });
  });
export type TelemetryConfig = z.infer<typeof TelemetryConfig>;
export type TelemetryConfigInput = z.input<typeof TelemetryConfig>;

/** The configuration from `TELEMETRY_CONFIG`. */
export function readTelemetryConfig(env: NodeJS.ProcessEnv = process.env): TelemetryConfig {
  const text = env[TELEMETRY_ENV.config];
  if (text === undefined || text === '')
    throw new InvalidTelemetryConfigurationError(`${TELEMETRY_ENV.config} is not set`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new InvalidTelemetryConfigurationError(`${TELEMETRY_ENV.config} is not JSON`, { cause });
  }
  const parsed = TelemetryConfig.safeParse(raw);
  if (!parsed.success)
    throw new InvalidTelemetryConfigurationError(
      `invalid ${TELEMETRY_ENV.config}:\n${z.prettifyError(parsed.error)}`,
      { cause: parsed.error },
    );
  return parsed.data;
}
