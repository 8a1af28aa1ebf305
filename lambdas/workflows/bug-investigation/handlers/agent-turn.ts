import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { BUG_INVESTIGATION_PROFILES } from '../profiles/index.ts';

/** The bug investigation's AgentTurn: its investigator's turns. */
export const handler = createAgentTurnHandler(BUG_INVESTIGATION_PROFILES);
