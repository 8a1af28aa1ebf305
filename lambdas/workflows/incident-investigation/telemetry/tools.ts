import * as z from 'zod';
import { type ToolSpec, toInputSchema } from '../../../tools/invocation.ts';
import { WindowArgs } from './window.ts';

/**
 * The telemetry tools as the model sees them: names, descriptions and argument schemas (zod,
 * one source of truth for the JSON schema the model gets and the validation the Lambda does).
 */

export const TELEMETRY_TOOL_NAMES = {
  queryLogs: 'query_logs',
  queryMetrics: 'query_metrics',
  recentDeployments: 'recent_deployments',
  serviceMap: 'service_map',
  getIncident: 'get_incident',
} as const;
export type TelemetryToolName = (typeof TELEMETRY_TOOL_NAMES)[keyof typeof TELEMETRY_TOOL_NAMES];
export const TelemetryToolName = z.enum(
  Object.values(TELEMETRY_TOOL_NAMES) as [TelemetryToolName, ...TelemetryToolName[]],
);

const service = z
  .string()
  .max(64)
  .describe('The service to query (one of the service map). Required: queries are per service.');
const source = z
  .enum(['cloudwatch', 'datadog'])
  .optional()
  .describe('Where to read: cloudwatch (default) or datadog, when enabled.');

export const QueryLogsArgs = z.strictObject({
  service: service.optional(),
  source,
  filterPattern: z
    .string()
    .max(1024)
    .optional()
    .describe(
      'CloudWatch filter pattern: terms that must all appear (`timeout ERROR`), "quoted phrases", ?any ?of, -excluded, or { $.level = "error" }. With datadog: a Datadog search query. Default: every event.',
    ),
  insightsQuery: z
    .string()
    .max(4000)
    .optional()
    .describe(
      'Instead of filterPattern: a CloudWatch Logs Insights query, e.g. `filter @message like /timeout/ | stats count(*) by bin(5m)`.',
    ),
  ...WindowArgs,
  maxEvents: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe('Events to analyze at most (capped by configuration).'),
});
export type QueryLogsArgs = z.infer<typeof QueryLogsArgs>;

export const QueryMetricsArgs = z.strictObject({
  service: service.optional(),
  source,
  metrics: z
    .array(z.string().min(1))
    .min(1)
    .max(10)
    .optional()
    .describe('Metric names of the service (default: all it has).'),
  stat: z
    .string()
    .regex(
      /^(Average|Sum|Minimum|Maximum|SampleCount|p\d{1,2}(\.\d+)?)$/,
      'Average, Sum, Minimum, Maximum, SampleCount or pNN',
    )
    .default('Average')
    .describe(
      'Statistic per period: Average (default), Sum, Maximum, Minimum, SampleCount, or a percentile like p99.',
    ),
  periodSeconds: z
    .number()
    .int()
    .min(60)
    .max(86_400)
    .refine((n) => n % 60 === 0, 'a multiple of 60')
    .optional()
    .describe('Seconds per datapoint, a multiple of 60 (default: about 60 points over the window).'),
  ...WindowArgs,
});
export type QueryMetricsArgs = z.infer<typeof QueryMetricsArgs>;

export const RecentDeploymentsArgs = z.strictObject({
  service: z.string().max(64).optional().describe('One service (default: every service of the service map).'),
  ...WindowArgs,
});
export type RecentDeploymentsArgs = z.infer<typeof RecentDeploymentsArgs>;

export const ServiceMapArgs = z.strictObject({
  service: z.string().max(64).optional().describe('Centre the map on one service (default: all).'),
});
export type ServiceMapArgs = z.infer<typeof ServiceMapArgs>;

export const GetIncidentArgs = z.strictObject({
  incidentId: z
    .string()
    .regex(/^[A-Z0-9]{5,20}$/, 'a PagerDuty incident id such as Q1ABC2DEF3GH4')
    .describe('The PagerDuty incident id.'),
});
export type GetIncidentArgs = z.infer<typeof GetIncidentArgs>;

const CITE = ' The result opens with its evidence id (ev-N): cite it for every finding it supports.';

export const TELEMETRY_TOOL_SCHEMAS = {
  query_logs: QueryLogsArgs,
  query_metrics: QueryMetricsArgs,
  recent_deployments: RecentDeploymentsArgs,
  service_map: ServiceMapArgs,
  get_incident: GetIncidentArgs,
} as const satisfies Record<TelemetryToolName, z.ZodType>;

const DESCRIPTIONS: Record<TelemetryToolName, string> = {
  query_logs:
    "Searches one service's logs over a bounded window and returns an analysis, not raw lines: templates with counts and rates, error patterns, anomalies (spikes, new errors), requests correlated by trace id, a timeline, and a few example lines. Windows wider than the configured maximum are narrowed; each query counts against the hypothesis's budget of queries per round." +
    CITE,
  query_metrics:
    "Reads one service's CloudWatch metrics (or Datadog's) over a bounded window: per metric the range, the baseline against the latest values, the largest level shift and when it happened, and a compact series." +
    CITE,
  recent_deployments:
    'Lists deployments (CloudFormation stack updates) of one service or of all, newest first, with when they started and finished, their status and the resources they changed.' +
    CITE,
  service_map:
    'The configured service map: each service, what it depends on, what depends on it, and where its logs, metrics and deployments are. Does not count as a query.' +
    CITE,
  get_incident:
    'The details of a PagerDuty incident: title, status, urgency, service, and its log entries (triggers, acknowledgements, notes).' +
    CITE,
};

/** The `ToolSpec` of each telemetry tool. */
export const telemetryTools: Record<TelemetryToolName, ToolSpec> = Object.fromEntries(
  Object.entries(TELEMETRY_TOOL_SCHEMAS).map(([name, schema]) => [
    name,
    { name, description: DESCRIPTIONS[name as TelemetryToolName], inputSchema: toInputSchema(schema) },
  ]),
) as Record<TelemetryToolName, ToolSpec>;
