import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { INCIDENT_PROFILES } from '../profiles/index.ts';

/** The incident investigation's AgentTurn: triage, hypotheses, investigation, conclusion, remediation plan. */
export const handler = createAgentTurnHandler(INCIDENT_PROFILES);
