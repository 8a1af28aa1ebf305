import type { handler as CheckProtectedChanges } from '../../lambdas/handlers/check-protected-changes.ts';
import type { handler as DefineChecks } from '../../lambdas/handlers/define-checks.ts';
import type { ApprovalWaitResult } from '../../lambdas/kernel/approval-wait.ts';
import type { BugTurnOutput, BugTurnState } from '../../lambdas/workflows/bug-investigation/contract.ts';
import type {
  BugFixOutput,
  BuildResults,
  FixRequestCheck,
  PullRequestOutcome,
} from '../../lambdas/workflows/bug-investigation/fix/contract.ts';
import type { CaughtError, KernelState } from '../kernel-state.ts';
import { stateOf } from '../result-paths.ts';
import type { PostedMessage } from '../slack-post.ts';
import type { TaskResultOf } from '../task-payload.ts';

/**
 * The bug investigation's state as a type (described field by field in states.ts): every
 * JSONPath of its graph comes from `BUG_STATE`, so a misspelt field fails tsc.
 */

/** What the next agent turn is told (`$.turnContext`). */
export interface TurnContext {
  readonly state: BugTurnState;
  readonly notes: readonly string[];
  readonly followUp: boolean;
}

/** The fix path's state, under `$.fix` (fix-path.ts). */
export interface FixState {
  /** Builds started. */
  readonly attempt: number;
  /** What the fixer's next turn is told. */
  readonly notes: readonly string[];
  /** The fixer's last turn. */
  readonly turn: BugFixOutput;
  /** "Define checks"' answer: the checks and the builds that run them. */
  readonly checks?: TaskResultOf<typeof DefineChecks>;
  /** Each checks build's Task output or its Catch's error (read by ReadBuildResults). */
  readonly builds?: readonly unknown[];
  readonly build: BuildResults;
  /** "Check protected changes"' verdict on the green fix branch. */
  readonly protected?: TaskResultOf<typeof CheckProtectedChanges>;
  readonly pullRequest: PullRequestOutcome;
}

export type BugState = KernelState & {
  readonly turnContext: TurnContext;
  /** The last turn's output. */
  readonly result: BugTurnOutput;
  readonly threads: { readonly summary?: PostedMessage; readonly escalation?: PostedMessage };
  /** The turn at which this execution hands over to a fresh one. */
  readonly handoverAtTurn: number;
  /** On an execution that continues a handed-over conversation, the ARN of the one before. */
  readonly handedOverFrom?: string;
  /** "Check fix request"' answer. */
  readonly fixRequest?: FixRequestCheck;
  readonly fix?: FixState;
  /** The decision on a fix touching protected paths. */
  readonly fixApproval?: ApprovalWaitResult;
  /** Why SLA tracking could not be started (the conversation goes on without reminders). */
  readonly slaStartFailure?: CaughtError;
};

/** The paths into the bug investigation's state. */
export const BUG_STATE = stateOf<BugState>();
/** The fix path's part of it. */
export const FIX = BUG_STATE.slot('fix');
