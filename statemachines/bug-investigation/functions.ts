import { CODE_TOOLS_FUNCTION, codeToolFunctions } from '../../lambdas/tools/code/deployment.ts';
import { CONVERSATION_HISTORY_TOOL } from '../../lambdas/tools/conversation-history.ts';
import { DEFINE_CHECKS_ENTRY } from '../checks-build.ts';
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
  | 'SlaCheck'
  | 'BugCodeTools'
  | 'CheckFixRequest'
  | 'ReadBuildResults'
  | 'OpenPullRequest'
  | 'DefineChecks'
  | 'CheckProtectedChanges';

const LAMBDAS = 'lambdas/workflows/bug-investigation/handlers';

export const BUG_FUNCTIONS = {
  /**
   * The investigator's and the fixer's turns, with the conversation-history tool and the code
   * tools (each profile offers the ones it may use: the investigator reads, the fixer writes).
   */
  BugInvestigationAgentTurn: agentTurnFunction<BugFunctionId>(`${LAMBDAS}/agent-turn.ts`, {
    [CONVERSATION_HISTORY_TOOL]: 'ConversationHistoryTool',
    ...(codeToolFunctions('BugCodeTools') as Record<string, 'BugCodeTools'>),
  }),
  /** Its posts and SLA tracking's: texts, the findings, the question, the escalation, the fix outcome. */
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
  /** The six code tools on the configured repository (lambdas/tools/code): the GitHub secret and the ledger only. */
  BugCodeTools: {
    entry: CODE_TOOLS_FUNCTION.entry,
    timeoutSeconds: CODE_TOOLS_FUNCTION.timeoutSeconds,
    memoryMb: CODE_TOOLS_FUNCTION.memoryMb,
    access: { table: 'read_write', githubSecret: true },
  },
  /** The fix path's check of who asked (a developer), in code: the Slack secret to read the developers' groups. */
  CheckFixRequest: {
    entry: `${LAMBDAS}/check-fix-request.ts`,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', slackSecret: true },
  },
  /** Per-check exit codes and output tails from a checks build's log. */
  ReadBuildResults: {
    entry: `${LAMBDAS}/read-build-results.ts`,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', buildLogs: true },
  },
  /** The fix's draft pull request, through Octokit. */
  OpenPullRequest: {
    entry: `${LAMBDAS}/open-pull-request.ts`,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', githubSecret: true },
  },
  /** Each check's command from the configuration or the base commit (never the branch under test). */
  DefineChecks: {
    entry: DEFINE_CHECKS_ENTRY,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', githubSecret: true },
  },
  /** The fix branch's real diff against the protected paths, before the pull request. */
  CheckProtectedChanges: {
    entry: 'lambdas/handlers/check-protected-changes.ts',
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', githubSecret: true },
  },
} as const satisfies Record<BugFunctionId, FunctionSpec<BugFunctionId>>;
