import { CONVERSATION_HISTORY_TOOL } from '../../lambdas/tools/conversation-history.ts';
import {
  agentTurnFunction,
  CONVERSATION_HISTORY_TOOL_FUNCTION,
  type FunctionSpec,
  slackPostFunction,
  TASK_FUNCTION_TIMEOUT_SECONDS,
} from '../kernel-functions.ts';

/** The bug investigation's own functions, by construct id. */
export type BugFunctionId =
  | 'BugInvestigationAgentTurn'
  | 'BugInvestigationSlackPost'
  | 'ConversationHistoryTool'
  | 'SlaCheck';

const LAMBDAS = 'lambdas/workflows/bug-investigation/handlers';

export const BUG_FUNCTIONS = {
  /** The investigator's turns, with the conversation-history tool. */
  BugInvestigationAgentTurn: agentTurnFunction<BugFunctionId>(`${LAMBDAS}/agent-turn.ts`, {
    [CONVERSATION_HISTORY_TOOL]: 'ConversationHistoryTool',
  }),
  /** Its posts and SLA tracking's: texts, the findings, the question and the escalation. */
  BugInvestigationSlackPost: slackPostFunction(`${LAMBDAS}/slack-post.ts`),
  /** The agents' conversation-history tool (`get_bug_conversations`). */
  ConversationHistoryTool: CONVERSATION_HISTORY_TOOL_FUNCTION,
  /** SLA tracking: has a developer answered since the escalation? */
  SlaCheck: {
    entry: `${LAMBDAS}/sla-check.ts`,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read' },
  },
} as const satisfies Record<BugFunctionId, FunctionSpec<BugFunctionId>>;
