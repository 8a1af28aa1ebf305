/**
 * The ports the telemetry tools read through. Adapters: CloudWatch Logs and metrics
 * (cloudwatch-sources.ts), CloudFormation stack events (cloudformation-deployments.ts),
 * Datadog (datadog.ts), PagerDuty (pagerduty.ts). Times are milliseconds since the epoch.
 */

export interface TimeRange {
  start: number;
  end: number;
}

export interface FetchedLogEvent {
  timestamp: number;
  message: string;
  /** The service the event belongs to (the tools set it from configuration). */
  service: string;
  /** Stream, host or similar, when the source has one. */
  stream?: string;
}

export interface LogsQuery extends TimeRange {
  service: string;
  /** CloudWatch: log group names. Datadog: ignored (the service tag selects). */
  logGroups: readonly string[];
  /** A CloudWatch filter pattern, or a Datadog search query (the `service:` tag is added). */
  pattern?: string;
  /** At most this many events. */
  limit: number;
}

export interface InsightsQuery extends TimeRange {
  logGroups: readonly string[];
  queryString: string;
  limit: number;
}

export interface InsightsRows {
  rows: Record<string, string>[];
  recordsMatched?: number;
  recordsScanned?: number;
}

export interface LogsSource {
  readonly name: string;
  /** Matching events in time order, at most `limit`; `truncated` when more matched. */
  filter(query: LogsQuery): Promise<{ events: FetchedLogEvent[]; truncated: boolean }>;
  /** Logs Insights, where the source has it. */
  insights?(query: InsightsQuery): Promise<InsightsRows>;
}

export interface MetricsQuery extends TimeRange {
  namespace: string;
  dimensions: Readonly<Record<string, string>>;
  names: readonly string[];
  /** `Average`, `Sum`, `Maximum`, `Minimum`, `SampleCount`, `p99`... */
  stat: string;
  periodSeconds: number;
  /** The service tag (Datadog). */
  service: string;
}

export interface MetricSeries {
  name: string;
  /** Ascending. */
  timestamps: number[];
  values: number[];
}

export interface MetricsSource {
  readonly name: string;
  get(query: MetricsQuery): Promise<MetricSeries[]>;
}

export interface ResourceChange {
  logicalId: string;
  type: string;
  physicalId?: string;
  status: string;
  reason?: string;
}

export interface Deployment {
  stack: string;
  started: number;
  /** When the stack reached a final status; absent while in progress. */
  finished?: number;
  /** The final stack status (`UPDATE_COMPLETE`, `UPDATE_ROLLBACK_COMPLETE`...) or the latest. */
  status: string;
  reason?: string;
  changes: ResourceChange[];
}

export interface DeploymentsSource {
  readonly name: string;
  /** Deployments of the stacks that started within the range, newest first. */
  list(stacks: readonly string[], range: TimeRange): Promise<Deployment[]>;
}

export interface IncidentDetails {
  id: string;
  title: string;
  status: string;
  urgency?: string;
  service?: string;
  createdAt: string;
  url?: string;
  /** Log entries, oldest first: triggers, acknowledgements, notes. */
  log: { at: string; type: string; summary: string }[];
}

export interface IncidentsSource {
  readonly name: string;
  get(incidentId: string): Promise<IncidentDetails>;
}
