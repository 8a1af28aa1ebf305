import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CloudFormationDeployments } from './cloudformation-deployments.ts';
import { CloudWatchLogsSource, CloudWatchMetricsSource } from './cloudwatch-sources.ts';
import type { TelemetryConfig } from './config.ts';
import { datadogCredentials, pagerdutyToken } from './credentials.ts';
import { DatadogSource } from './datadog.ts';
import type { TelemetryDeps } from './deps.ts';
import { DynamoEvidenceLedger } from './dynamo-evidence-ledger.ts';
import { PagerDutySource } from './pagerduty.ts';
import type { TemplateReviewDeps } from './template-advisor.ts';

/**
 * The real sources for a configuration: only the enabled ones exist, so a disabled source
 * cannot be called. The SDK clients honour `AWS_ENDPOINT_URL_*` (the sandbox's emulators).
 */
export function createTelemetryDeps(options: {
  config: TelemetryConfig;
  tableName: string;
  retentionDays?: number;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  /** The clock of the windows and the ledger's records. @default Date.now */
  now?: () => number;
  /** The model's review of query_logs' templates (`logTemplateReview.enabled`). @default - none */
  templateReview?: TemplateReviewDeps;
}): TelemetryDeps {
  const { config } = options;
  const now = options.now ?? Date.now;
  const env = options.env ?? process.env;
  const cloudwatch = config.sources.cloudwatch.enabled;
  const datadog = config.sources.datadog.enabled
    ? new DatadogSource({
        baseUrl: config.sources.datadog.baseUrl,
        credentials: () => datadogCredentials(env),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      })
    : undefined;
  const logs = cloudwatch
    ? new CloudWatchLogsSource(new CloudWatchLogsClient({}), {
        insightsTimeoutMs: config.insightsTimeoutSeconds * 1000,
      })
    : undefined;
  const metrics = cloudwatch ? new CloudWatchMetricsSource(new CloudWatchClient({})) : undefined;
  return {
    config,
    ledger: new DynamoEvidenceLedger({
      client: new DynamoDBClient({}),
      tableName: options.tableName,
      now,
      ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
    }),
    logs: { ...(logs ? { cloudwatch: logs } : {}), ...(datadog ? { datadog } : {}) },
    metrics: { ...(metrics ? { cloudwatch: metrics } : {}), ...(datadog ? { datadog } : {}) },
    ...(cloudwatch ? { deployments: new CloudFormationDeployments(new CloudFormationClient({})) } : {}),
    ...(config.sources.pagerduty.enabled
      ? {
          incidents: new PagerDutySource({
            baseUrl: config.sources.pagerduty.baseUrl,
            token: () => pagerdutyToken(env),
            ...(options.fetch ? { fetch: options.fetch } : {}),
          }),
        }
      : {}),
    ...(options.templateReview ? { templateReview: options.templateReview } : {}),
    now,
  };
}
