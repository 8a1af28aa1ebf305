import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * One structured logger and one metrics emitter per Lambda, from Powertools (level from
 * `POWERTOOLS_LOG_LEVEL`, default INFO). Handlers put `conversationId` on every line about a
 * conversation, so one CloudWatch Logs Insights filter finds all of it.
 */
export function createLogger(serviceName: string): Logger {
  return new Logger({ serviceName });
}

export function createMetrics(serviceName: string): Metrics {
  return new Metrics({ serviceName, namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'SlackAgents' });
}
