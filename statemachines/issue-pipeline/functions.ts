import { CODE_TOOLS_FUNCTION, codeToolFunctions } from '../../lambdas/tools/code/deployment.ts';
import { DEFINE_CHECKS_ENTRY } from '../checks-build.ts';
import { agentTurnFunction, type FunctionSpec, TASK_FUNCTION_TIMEOUT_SECONDS } from '../kernel-functions.ts';

/** The issue pipeline's own functions, by construct id. */
export type IssueFunctionId =
  | 'IssuePipelineAgentTurn'
  | 'IssueCodeTools'
  | 'IssueStart'
  | 'IssueHandOff'
  | 'IssueJudgeBuild'
  | 'IssueCommitter'
  | 'IssueProgress'
  | 'IssueRetrigger'
  | 'IssueDefineChecks';

const LAMBDAS = 'lambdas/workflows/issue-pipeline/handlers';

const task = (
  entry: string,
  access: FunctionSpec<IssueFunctionId>['access'],
): FunctionSpec<IssueFunctionId> => ({
  entry: `${LAMBDAS}/${entry}`,
  timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
  memoryMb: 256,
  ...(access === undefined ? {} : { access }),
});

export const ISSUE_FUNCTIONS = {
  /** The triage, analyst, writer and reviewer turns, with the code tools (each profile offers its own). */
  IssuePipelineAgentTurn: agentTurnFunction<IssueFunctionId>(
    `${LAMBDAS}/agent-turn.ts`,
    codeToolFunctions('IssueCodeTools') as Record<string, 'IssueCodeTools'>,
  ),
  /** The six code tools on the configured repository: the GitHub secret and the ledger only. */
  IssueCodeTools: {
    entry: CODE_TOOLS_FUNCTION.entry,
    timeoutSeconds: CODE_TOOLS_FUNCTION.timeoutSeconds,
    memoryMb: CODE_TOOLS_FUNCTION.memoryMb,
    access: { table: 'read_write', githubSecret: true },
  },
  /** Reads the issue, notes the base commit, stores the initial document. */
  IssueStart: task('start.ts', { table: 'read_write', githubSecret: true, slackSecret: true }),
  /** Validates an agent's output into the document and decides the next stage (and who may answer). */
  IssueHandOff: task('hand-off.ts', { table: 'read_write', githubSecret: true }),
  /** The build's per-check results, judged against the base commit's. */
  IssueJudgeBuild: task('judge-build.ts', { table: 'read_write', buildLogs: true }),
  /** The pull request, by code. */
  IssueCommitter: task('committer.ts', { table: 'read_write', githubSecret: true }),
  /** The Slack message and the issue comment, edited in place. */
  IssueProgress: task('progress.ts', { table: 'read_write', githubSecret: true, slackSecret: true }),
  /** Answers on an issue labelled again while its pipeline runs (the Router's queue). */
  IssueRetrigger: task('retrigger.ts', { table: 'read', githubSecret: true }),
  /** Each check's command from the configuration or the base commit (never the branch under test). */
  IssueDefineChecks: {
    entry: DEFINE_CHECKS_ENTRY,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', githubSecret: true },
  },
} as const satisfies Record<IssueFunctionId, FunctionSpec<IssueFunctionId>>;
