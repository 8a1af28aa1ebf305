import type { handler as DefineChecksHandler } from '../../lambdas/handlers/define-checks.ts';
import type { ApprovalWaitResult } from '../../lambdas/kernel/approval-wait.ts';
import type { IssueTurnOutput } from '../../lambdas/workflows/issue-pipeline/contract.ts';
import type { handler as CommitterHandler } from '../../lambdas/workflows/issue-pipeline/handlers/committer.ts';
import type { handler as HandOffHandler } from '../../lambdas/workflows/issue-pipeline/handlers/hand-off.ts';
import type { handler as ProgressHandler } from '../../lambdas/workflows/issue-pipeline/handlers/progress.ts';
import type { handler as StartHandler } from '../../lambdas/workflows/issue-pipeline/handlers/start.ts';
import type { KernelState } from '../kernel-state.ts';
import { stateOf } from '../result-paths.ts';
import type { TaskResultOf } from '../task-payload.ts';

/**
 * The issue pipeline's state as a type (described field by field in states.ts): every JSONPath
 * of its graph comes from `ISSUE_STATE`, so a misspelt field fails tsc.
 */
export type IssueState = KernelState & {
  readonly pipeline: TaskResultOf<typeof StartHandler>;
  readonly handOff: TaskResultOf<typeof HandOffHandler>;
  readonly turnOutput?: IssueTurnOutput;
  readonly build: {
    readonly checks?: TaskResultOf<typeof DefineChecksHandler>;
    /** Each checks build's Task output or its Catch's error (read by IssueJudgeBuild). */
    readonly builds?: readonly unknown[];
  };
  readonly progress?: TaskResultOf<typeof ProgressHandler>;
  /** The approval of the change before it is committed. */
  readonly approval?: ApprovalWaitResult;
  readonly commit?: TaskResultOf<typeof CommitterHandler>;
};

export const ISSUE_STATE = stateOf<IssueState>();
