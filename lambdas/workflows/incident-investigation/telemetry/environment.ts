/**
 * The variables the telemetry tools read. A module of its own: the agents' tool specs name the
 * functions without loading the configuration's schemas.
 */
export const TELEMETRY_ENV = {
  /** The `TelemetryConfig` as JSON (required). */
  config: 'TELEMETRY_CONFIG',
  /** ARN of the Secrets Manager secret `{ "apiKey": "...", "appKey": "..." }` for Datadog. */
  datadogSecretArn: 'DATADOG_SECRET_ARN',
  /** Local overrides (sandbox, tests). Never set in AWS. */
  datadogApiKey: 'DATADOG_API_KEY',
  datadogAppKey: 'DATADOG_APP_KEY',
  /** ARN of the Secrets Manager secret `{ "token": "..." }` (a PagerDuty REST API key). */
  pagerdutySecretArn: 'PAGERDUTY_SECRET_ARN',
  /** Local override (sandbox, tests). Never set in AWS. */
  pagerdutyToken: 'PAGERDUTY_API_TOKEN',
} as const;
