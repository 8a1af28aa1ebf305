import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ModelCallError } from '../agents/errors.ts';
import type { ModelClient } from '../agents/ports.ts';
import { AGENT_METRIC, AGENT_METRICS_SERVICE, METRICS_NAMESPACE } from '../shared/metric-names.ts';

/** What the agents' metrics need of Powertools Metrics (a fake in tests is not needed: see createAgentMetrics). */
export type MetricsSink = Pick<Metrics, 'addMetric' | 'addMetadata' | 'publishStoredMetrics'>;

/**
 * The agents' metrics emitter: namespace `SlackAgents`, dimension `service=agents` whichever
 * function emits, so one alarm covers AgentTurn and the ChannelResponder. Disabled in dev mode
 * (POWERTOOLS_DEV, the sandbox) unless POWERTOOLS_METRICS_DISABLED=false.
 */
export function createAgentMetrics(): Metrics {
  return new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
    serviceName: AGENT_METRICS_SERVICE,
  });
}

/**
 * Wraps a model client so every call emits its latency (success) or an error count (a
 * failure left after the client's retries), published at once: an agent turn may end in a
 * Lambda timeout, and metrics kept for the end of the invocation would be lost with it.
 * A call aborted at the turn's own deadline is the budget, not the model, and is not counted.
 */
export function withModelMetrics(
  model: ModelClient,
  options: { metrics: MetricsSink; provider: string; now?: () => number },
): ModelClient {
  const now = options.now ?? (() => performance.now());
  return {
    async createMessage(params, requestOptions) {
      const started = now();
      try {
        const message = await model.createMessage(params, requestOptions);
        options.metrics.addMetric(AGENT_METRIC.modelLatency, MetricUnit.Milliseconds, now() - started);
        return message;
      } catch (error) {
        const aborted = error instanceof ModelCallError && error.details.aborted === true;
        if (!aborted) {
          options.metrics.addMetric(AGENT_METRIC.modelErrors, MetricUnit.Count, 1);
          if (error instanceof ModelCallError && error.details.status !== undefined)
            options.metrics.addMetadata('status', String(error.details.status));
        }
        throw error;
      } finally {
        options.metrics.addMetadata('provider', options.provider);
        options.metrics.addMetadata('model', params.model);
        options.metrics.publishStoredMetrics();
      }
    },
  };
}

/** Counts an agent turn that ended in an escalation because it failed (its output carries `error`). */
export function recordFailedTurn(metrics: MetricsSink, output: { action: string; error?: string }): boolean {
  if (output.action !== 'escalate' || output.error === undefined) return false;
  metrics.addMetric(AGENT_METRIC.agentTurnsFailed, MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
  return true;
}
