import type { handler as DefineChecksHandler } from '../../lambdas/handlers/define-checks.ts';
import type { handler as CommitterHandler } from '../../lambdas/workflows/issue-pipeline/handlers/committer.ts';
import type { handler as HandOffHandler } from '../../lambdas/workflows/issue-pipeline/handlers/hand-off.ts';
import type { handler as JudgeBuildHandler } from '../../lambdas/workflows/issue-pipeline/handlers/judge-build.ts';
import type { handler as ProgressHandler } from '../../lambdas/workflows/issue-pipeline/handlers/progress.ts';
import type { handler as StartHandler } from '../../lambdas/workflows/issue-pipeline/handlers/start.ts';
import type { lambdaTask } from '../lambda-task.ts';
import type { DistributiveOmit, PayloadTemplate, TaskInputOf } from '../task-payload.ts';

/**
 * The pipeline's task functions as the graph calls them: each one's input, inferred from its
 * handler's schema, so a payload with a wrong or missing field fails the type check.
 */

/** The input each of the pipeline's task functions validates, inferred from its handler's schema. */
export type IssueTaskInputs = {
  IssueStart: TaskInputOf<typeof StartHandler>;
  IssueHandOff: TaskInputOf<typeof HandOffHandler>;
  IssueJudgeBuild: TaskInputOf<typeof JudgeBuildHandler>;
  IssueCommitter: TaskInputOf<typeof CommitterHandler>;
  IssueProgress: TaskInputOf<typeof ProgressHandler>;
  IssueDefineChecks: TaskInputOf<typeof DefineChecksHandler>;
};

/** What a task of the pipeline is given besides the conversation id (which `task` adds). */
export type IssueTaskPayload<F extends keyof IssueTaskInputs> = PayloadTemplate<
  DistributiveOmit<IssueTaskInputs[F], 'conversationId'>
>;

/** A task of the pipeline's own function `fn`, its payload checked against the function's input. */
export type IssueTask = <F extends keyof IssueTaskInputs>(
  name: string,
  fn: F,
  payload: IssueTaskPayload<F>,
  resultPath: string,
) => ReturnType<typeof lambdaTask>;
