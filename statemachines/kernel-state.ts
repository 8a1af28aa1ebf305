import type { handler as DrainHandler } from '../lambdas/handlers/drain.ts';
import type { ExecutionInput, WakeOutput } from '../lambdas/kernel/tasks.ts';
import { stateOf } from './result-paths.ts';
import type { TaskResultOf } from './task-payload.ts';

/**
 * The state every workflow execution carries: its input (`ExecutionInput`, written by the
 * Router) and the slots the kernel's fragments (kernel.ts) add. A workflow's own state extends
 * it, and its JSONPaths come from that type (`stateOf`), so a misspelt field fails tsc.
 */

/** The fields of Drain's result that `drain` keeps. */
export const DRAINED_FIELDS = ['turn', 'closeRequested', 'count', 'messages'] as const;
/** Drain's result without the invoke's envelope. */
export type DrainedResult = Pick<TaskResultOf<typeof DrainHandler>, (typeof DRAINED_FIELDS)[number]>;

/** An error a Catch puts in the state (`ResultPath` of a catcher). */
export interface CaughtError {
  readonly Error: string;
  readonly Cause: string;
}

/** The kernel's part of every execution's state. */
export type KernelState = ExecutionInput & {
  /** `drain`'s result: the messages handed to this turn. */
  readonly drained?: DrainedResult;
  /** `waitForPeople`'s result: what woke the wait. */
  readonly wake?: WakeOutput;
  /** `catchTimeout`'s error of a wait that timed out. */
  readonly timedOut?: CaughtError;
  /** `catchFailure`'s error of a task that failed after its retries. */
  readonly failure?: CaughtError;
  /** `closeOut`'s look at the last drain: whether a person's message was left unhandled. */
  readonly unhandled?: { readonly any: boolean };
  /** `continueAsNew`'s start of the fresh execution, and its error when the start or its record failed. */
  readonly handover?: { readonly executionArn: string };
  readonly handoverFailure?: CaughtError;
  /** `tellFailure`'s post, kept for the execution history, and its error when it could not be told. */
  readonly failureNotice?: unknown;
  readonly failureNoticeError?: CaughtError;
};

/** The paths into the kernel's state. */
export const KERNEL_STATE = stateOf<KernelState>();
