import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { INCIDENT_ROLES } from '../profiles/roles.ts';
import { INCIDENT_PLAN, INCIDENT_ROUND } from '../progress-plan.ts';

/** The incident investigation's AgentTurn: triage, hypotheses, investigation, conclusion, remediation plan. */
export const handler = createAgentTurnHandler(INCIDENT_ROLES, {
  plan: INCIDENT_PLAN,
  round: INCIDENT_ROUND,
  // An MCP result is evidence its findings may cite, as the telemetry tools' are. The ledger's
  // wiring (with the incident's settings) loads with the first MCP result, not on every turn.
  mcpEvidence: async (conversationId, call) =>
    (await import('../wiring.ts')).recordMcpEvidence(conversationId, call),
});
