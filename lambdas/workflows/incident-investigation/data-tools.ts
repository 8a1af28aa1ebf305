import type { ToolSpec } from '../../tools/invocation.ts';
import { telemetryToolSpecs } from './telemetry/deployment.ts';

/**
 * The data tools the triage and investigating agents call (CloudWatch Logs and metrics,
 * recent deployments, the service map, a PagerDuty incident): served by the telemetry tool
 * function (lambdas/workflows/incident-investigation/telemetry), whose results carry the evidence ids findings cite.
 */
export const INCIDENT_DATA_TOOLS: readonly ToolSpec[] = telemetryToolSpecs();
