import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { ISSUE_PIPELINE_PROFILES } from '../profiles/index.ts';

/** The issue pipeline's AgentTurn: its triage, analyst, writer and reviewer turns. */
export const handler = createAgentTurnHandler(ISSUE_PIPELINE_PROFILES);
