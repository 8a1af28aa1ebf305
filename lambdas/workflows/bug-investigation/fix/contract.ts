import * as z from 'zod';
import { BuildResults } from '../../../builds/contract.ts';
import { DrainedMessage } from '../../../kernel/drained-message.ts';

export { BuildResults, CheckResult, ReadBuildResultsInput } from '../../../builds/contract.ts';

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

/** Input of "Check fix request": the request the investigator cites, and the turn it ran in. */
export const FixRequestCheckInput = z.object({
  conversationId: z.string().min(1),
  /** The turn that asked for the fix: the cited message must have reached it or an earlier one. */
  turn: z.number().int().nonnegative(),
  /** The id (ts) of the message or "Fix it" press the investigator cites as the request. */
  fixRequest: z.string().min(1).optional(),
  /** The investigator's turn output (`BugTurnOutput`), whose `fixRequest` is used when `fixRequest` is not given. */
  result: z.looseObject({ fixRequest: z.string().min(1).optional() }).optional(),
  /** The messages the investigator's turn saw (for the record; they lend no authority). */
  messages: z.array(DrainedMessage).default([]),
});
export type FixRequestCheckInput = z.infer<typeof FixRequestCheckInput>;

/** Output of "Check fix request" (`$.fix.request`). */
export const FixRequestCheck = z.object({
  allowed: z.boolean(),
  /** The developer whose message asked, when allowed. */
  requestedBy: z.string().optional(),
  reason: z.string(),
  /** Where a refusal is told (the request's thread, else the findings or the reporter's thread). */
  notice: z.object({ channel: z.string().min(1), threadTs: z.string().min(1) }).optional(),
  /** The bug's work branch (`bugWorkBranch`), which the fix path writes, builds and proposes. */
  workBranch: z.string().min(1),
});
export type FixRequestCheck = z.infer<typeof FixRequestCheck>;

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
  /**
   * The branch head whose diff "Check protected changes" judged (and an approver may have
   * approved): a branch that moved since is not proposed.
   */
  checkedHead: z.string().optional(),
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
