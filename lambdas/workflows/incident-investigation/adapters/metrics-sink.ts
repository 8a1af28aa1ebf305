import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from '../../../shared/metric-names.ts';
import type { MetricsSink } from '../metrics.ts';
import type { AgentMetrics } from '../record.ts';

/** The `service` dimension of the investigations' metrics. */
export const INCIDENT_METRICS_SERVICE = 'incident_investigation';

const COUNTS: readonly (keyof AgentMetrics)[] = [
  'hypothesesFormed',
  'hypothesesPruned',
  'hypothesesConfirmed',
  'rounds',
  'toolCallsPerInvestigation',
  'findingsDropped',
  'approvalsRequested',
  'approvalsGranted',
  'clarificationsNeeded',
];

/**
 * AgentMetrics as CloudWatch metrics (embedded metric format through Powertools, namespace
 * `SlackAgents`, dimensions `service` and `outcome`), published at once: one set per investigation.
 */
export function powertoolsMetricsSink(
  metrics = new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
    serviceName: INCIDENT_METRICS_SERVICE,
  }),
): MetricsSink {
  return {
    emit(values, dimensions) {
      metrics.addDimension('outcome', dimensions.outcome);
      for (const name of COUNTS) metrics.addMetric(name, MetricUnit.Count, Number(values[name]));
      metrics.addMetric('averageDepth', MetricUnit.NoUnit, values.averageDepth);
      if (values.timeToRootCause !== undefined)
        metrics.addMetric('timeToRootCause', MetricUnit.Seconds, values.timeToRootCause);
      metrics.publishStoredMetrics();
    },
  };
}
