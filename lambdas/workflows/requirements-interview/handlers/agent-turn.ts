import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { REQUIREMENTS_INTERVIEW_ROLES } from '../profiles/roles.ts';

/** The requirements interview's AgentTurn: the clarifier's, the PRD writer's and the analyst's turns. */
export const handler = createAgentTurnHandler(REQUIREMENTS_INTERVIEW_ROLES);
