import type { ToolSpec } from '../../tools/invocation.ts';

/**
 * The data tools the triage and investigating agents call (CloudWatch Logs and metrics,
 * recent deployments, the service map): served by the telemetry tool functions
 * (lambdas/tools/telemetry), whose results carry the evidence ids findings cite.
 */
export const INCIDENT_DATA_TOOLS: readonly ToolSpec[] = [];
