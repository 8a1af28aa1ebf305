import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { BUG_INVESTIGATION_ROLES } from '../profiles/roles.ts';

/** The bug investigation's AgentTurn: its investigator's and its fixer's turns. */
export const handler = createAgentTurnHandler(BUG_INVESTIGATION_ROLES);
