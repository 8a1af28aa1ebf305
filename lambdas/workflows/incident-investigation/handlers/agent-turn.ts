import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { INCIDENT_PROFILES } from '../profiles/index.ts';
import { INCIDENT_PLAN, INCIDENT_ROUND } from '../progress-plan.ts';
import { recordMcpEvidence } from '../wiring.ts';

/** The incident investigation's AgentTurn: triage, hypotheses, investigation, conclusion, remediation plan. */
export const handler = createAgentTurnHandler(INCIDENT_PROFILES, {
  plan: INCIDENT_PLAN,
  round: INCIDENT_ROUND,
  // An MCP result is evidence its findings may cite, as the telemetry tools' are.
  mcpEvidence: recordMcpEvidence,
});
