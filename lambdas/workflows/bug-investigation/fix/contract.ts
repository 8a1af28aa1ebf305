import * as z from 'zod';
import { DrainedMessage } from '../../../kernel/tasks.ts';

/**
 * The fix path's contracts with the state machine (statemachines/bug-investigation/fix-path.ts):
 * the fixer's turn output, the fix-request check, the build results and the pull request.
 * Every text is capped: these go through the execution's state.
 */

/** What a fixer turn returns (`$.fix.turn`). */
export const BugFixOutput = z.object({
  action: z.enum(['fix_written', 'cannot_fix']),
  sessionId: z.string().min(1),
  summary: z.string().max(2_000),
});
export type BugFixOutput = z.infer<typeof BugFixOutput>;

/** Input of "Check fix request": the messages the investigator's turn saw. */
export const FixRequestCheckInput = z.object({
  conversationId: z.string().min(1),
  messages: z.array(DrainedMessage),
});
export type FixRequestCheckInput = z.infer<typeof FixRequestCheckInput>;

/** Output of "Check fix request" (`$.fix.request`). */
export const FixRequestCheck = z.object({
  allowed: z.boolean(),
  /** The developer whose message asked, when allowed. */
  requestedBy: z.string().optional(),
  reason: z.string(),
  /** The bug's work branch (`bugWorkBranch`), which the fix path writes, builds and proposes. */
  workBranch: z.string().min(1),
});
export type FixRequestCheck = z.infer<typeof FixRequestCheck>;

/** One check of a build: its exit code (absent when it never finished) and its output's tail. */
export const CheckResult = z.object({
  name: z.string(),
  /** Absent: the check started but never ended (the build timed out or was stopped). */
  exitCode: z.number().int().optional(),
  /** The command was not configured and the repository has no such script. */
  skipped: z.boolean(),
  tail: z.string(),
});
export type CheckResult = z.infer<typeof CheckResult>;

/** Output of "Read build results" (`$.fix.build`). */
export const BuildResults = z.object({
  attempt: z.number().int().positive(),
  passed: z.boolean(),
  /** CodeBuild's status (SUCCEEDED, FAILED, TIMED_OUT, STOPPED), or NOT_STARTED. */
  status: z.string(),
  buildId: z.string().optional(),
  checks: z.array(CheckResult),
  /** One line per check, for Slack and the pull request. */
  summary: z.string().max(2_000),
  /** What the fixer's next attempt is told: the failing checks' output. */
  feedback: z.array(z.string().max(8_000)),
});
export type BuildResults = z.infer<typeof BuildResults>;

/** Input of "Read build results": the Task's output, or what its Catch recorded. */
export const ReadBuildResultsInput = z.object({
  conversationId: z.string().min(1),
  attempt: z.number().int().positive(),
  /** `{ Build }` of a build that succeeded; `{}` when it did not. */
  output: z.object({ Build: z.record(z.string(), z.unknown()).optional() }).optional(),
  /** `{ Error, Cause }` of a build that failed, timed out or could not start; `{}` when it succeeded. */
  failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});
export type ReadBuildResultsInput = z.infer<typeof ReadBuildResultsInput>;

/** Input of "Open pull request". */
export const OpenPullRequestInput = z.object({
  conversationId: z.string().min(1),
  /** The work branch the fixer wrote to. */
  branch: z.string().min(1),
  findings: z.object({
    summary: z.string(),
    rootCause: z.string().optional(),
    severity: z.string().optional(),
    fix: z.object({ description: z.string() }).optional(),
  }),
  fixSummary: z.string(),
  build: BuildResults,
  requestedBy: z.string().optional(),
  /** The findings thread, linked from the pull request. */
  thread: z.object({ channel: z.string(), threadTs: z.string() }),
});
export type OpenPullRequestInput = z.infer<typeof OpenPullRequestInput>;

/** Output of "Open pull request" (`$.fix.pullRequest`). */
export const PullRequestOutcome = z.object({
  opened: z.boolean(),
  url: z.string().optional(),
  number: z.number().int().optional(),
  /** Why none was opened (a GitHub refusal), when none was. */
  reason: z.string().optional(),
});
export type PullRequestOutcome = z.infer<typeof PullRequestOutcome>;
