import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * One structured logger and one metrics emitter per Lambda, from Powertools. Handlers
 * append `conversationId` as a persistent key as soon as they know it, so every line of a
 * conversation can be found with one CloudWatch Logs Insights filter.
 */
export function createLogger(serviceName: string): Logger {
  return new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'INFO' });
}

export function createMetrics(serviceName: string): Metrics {
  return new Metrics({ serviceName, namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'SlackAgents' });
}
