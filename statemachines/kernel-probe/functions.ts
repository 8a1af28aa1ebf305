import { agentTurnFunction, type FunctionSpec, slackPostFunction } from '../kernel-functions.ts';

/** The probe's own functions, by construct id. */
export type ProbeFunctionId = 'ProbeAgentTurn' | 'ProbeSlackPost';

const LAMBDAS = 'lambdas/workflows/kernel-probe/handlers';

export const PROBE_FUNCTIONS = {
  /** The probe agent's turn (no tools). */
  ProbeAgentTurn: agentTurnFunction<ProbeFunctionId>(`${LAMBDAS}/agent-turn.ts`),
  /** Its posts: texts, and the agent's answer with feedback buttons. */
  ProbeSlackPost: slackPostFunction(`${LAMBDAS}/slack-post.ts`),
} as const satisfies Record<ProbeFunctionId, FunctionSpec<ProbeFunctionId>>;
