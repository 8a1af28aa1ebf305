import { agentTurnFunction, type FunctionSpec, slackPostFunction } from '../kernel-functions.ts';

/** The requirements interview's own functions, by construct id. */
export type RequirementsFunctionId = 'RequirementsInterviewAgentTurn' | 'RequirementsInterviewSlackPost';

const LAMBDAS = 'lambdas/workflows/requirements-interview/handlers';

export const REQUIREMENTS_FUNCTIONS = {
  /** The clarifier's, the PRD writer's and the analyst's turns (no tools). */
  RequirementsInterviewAgentTurn: agentTurnFunction<RequirementsFunctionId>(`${LAMBDAS}/agent-turn.ts`),
  /** Its posts: texts, the questions, the PRD and the analysis with their files. */
  RequirementsInterviewSlackPost: slackPostFunction(`${LAMBDAS}/slack-post.ts`),
} as const satisfies Record<RequirementsFunctionId, FunctionSpec<RequirementsFunctionId>>;
