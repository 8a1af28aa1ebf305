import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { BuildSettings } from '../../lambdas/builds/contract.ts';
import type { ProtectedChangeHandling } from '../../lambdas/changes/protected-paths.ts';
import type { handler as CheckProtectedChanges } from '../../lambdas/handlers/check-protected-changes.ts';
import type { handler as DefineChecks } from '../../lambdas/handlers/define-checks.ts';
import { approvalResult, approvalWait } from '../approval-wait.ts';
import { catchFailure, FAILURE } from '../kernel.ts';
import { lambdaTask, type TaskInputOf } from '../lambda-task.ts';
import { BUG_STATE, FIX } from './bug-state.ts';

/**
 * The fix path's two guards on facts (docs/security-code-changes.md): "Define checks" before
 * each build (the commands from the configuration or the base commit, never the fix branch),
 * and "Check protected changes" after a green build (the fix branch's real diff against the
 * protected paths: clear, an approver's button with the diff of those files, or refused).
 */

/** The decision kind of a fix touching protected paths (who may press: `slackAgents.approvals`). */
export const PROTECTED_FIX_DECISION = 'approve_protected_fix';

const FIX_GUARD_STATES = {
  defineChecks: 'Define checks',
  noteUndefinedChecks: 'Note checks not defined',
  checkProtected: 'Check protected changes',
  noteUncheckedPaths: 'Note protected paths not checked',
  protectedTouched: 'Protected paths touched?',
  protectedApproved: 'Protected change approved?',
  noteRefused: 'Note protected change refused',
  noteRejected: 'Note protected change rejected',
  noteExpired: 'Note protected change not approved in time',
  noteApprovalFailed: 'Note protected change approval failed',
} as const;

/** How the approval wait's states name the decision ("Post protected change approval", ...). */
const PROTECTED_FIX_APPROVAL_LABEL = 'protected change approval';

/** Where the decision on a protected change is kept. */
const FIX_APPROVAL = approvalResult(BUG_STATE.at('fixApproval'));

/** "Define checks" (its answer at `$.fix.checks`); its failure is told in both threads (`explain`). */
export function defineChecksState(
  scope: Construct,
  props: { fn: IFunction; branchPath: string; build: BuildSettings; explain: sfn.IChainable },
): sfn.TaskStateBase {
  const S = FIX_GUARD_STATES;
  const define = lambdaTask<TaskInputOf<typeof DefineChecks>>(
    scope,
    S.defineChecks,
    props.fn,
    {
      conversationId: sfn.JsonPath.stringAt(BUG_STATE.at('conversationId')),
      branch: sfn.JsonPath.stringAt(props.branchPath),
      commands: props.build.commands,
    },
    FIX.at('checks'),
  );
  const note = sfn.Pass.jsonPath(scope, S.noteUndefinedChecks, {
    parameters: {
      attempt: sfn.JsonPath.numberAt(FIX.at('attempt')),
      passed: false,
      status: 'NOT_STARTED',
      checks: [],
      summary: sfn.JsonPath.format(
        'The checks could not be defined from the base commit: {}',
        sfn.JsonPath.stringAt(FAILURE.at('Error')),
      ),
      feedback: [],
    },
    resultPath: FIX.at('build'),
  }).next(props.explain);
  catchFailure(define, note);
  return define;
}

export interface ProtectedGateProps {
  readonly checkFn: IFunction;
  readonly slackPostFn: IFunction;
  readonly approvalWaitFn: IFunction;
  readonly branchPath: string;
  readonly handling: ProtectedChangeHandling;
  /** Where the approval is asked (the findings thread). */
  readonly thread: { channel: string; threadTs: string };
  readonly timeout: Duration;
  /** Clear or approved: open the pull request. */
  readonly open: sfn.IChainable;
  /** Refused, rejected, expired, or not checked: say why in both threads (reads `$.fix.pullRequest`). */
  readonly explain: sfn.IChainable;
}

/** "Check protected changes" and what follows from its verdict; returns its first state. */
export function protectedGateStates(scope: Construct, props: ProtectedGateProps): sfn.IChainable {
  const S = FIX_GUARD_STATES;
  const noPullRequest = (name: string, reason: string) =>
    sfn.Pass.jsonPath(scope, name, {
      parameters: { opened: false, reason },
      resultPath: FIX.at('pullRequest'),
    }).next(props.explain);
  const check = lambdaTask<TaskInputOf<typeof CheckProtectedChanges>>(
    scope,
    S.checkProtected,
    props.checkFn,
    {
      conversationId: sfn.JsonPath.stringAt(BUG_STATE.at('conversationId')),
      branch: sfn.JsonPath.stringAt(props.branchPath),
      handling: props.handling,
    },
    FIX.at('protected'),
  );
  catchFailure(
    check,
    noPullRequest(
      S.noteUncheckedPaths,
      sfn.JsonPath.format(
        'the changed paths could not be checked against the protected paths ({}), so no pull request was opened.',
        sfn.JsonPath.stringAt(FAILURE.at('Error')),
      ),
    ),
  );
  const refused = noPullRequest(S.noteRefused, sfn.JsonPath.stringAt(FIX.at('protected.reason')));
  const rejected = noPullRequest(
    S.noteRejected,
    sfn.JsonPath.format(
      '<@{}> rejected the change to protected paths.\n{}',
      sfn.JsonPath.stringAt(FIX_APPROVAL.at('by')),
      sfn.JsonPath.stringAt(FIX.at('protected.reason')),
    ),
  );
  const expired = noPullRequest(
    S.noteExpired,
    sfn.JsonPath.format(
      'nobody approved the change to protected paths in time.\n{}',
      sfn.JsonPath.stringAt(FIX.at('protected.reason')),
    ),
  );
  const approved = sfn.Choice.jsonPath(scope, S.protectedApproved)
    .when(sfn.Condition.stringEquals(FIX_APPROVAL.at('decision'), 'approve'), props.open)
    .when(sfn.Condition.stringEquals(FIX_APPROVAL.at('outcome'), 'decided'), rejected)
    .otherwise(expired);
  const approval = approvalWait(scope, 'Protected fix approval', {
    label: PROTECTED_FIX_APPROVAL_LABEL,
    slackPostFn: props.slackPostFn,
    approvalWaitFn: props.approvalWaitFn,
    channel: props.thread.channel,
    threadTs: props.thread.threadTs,
    text: sfn.JsonPath.format(':lock: {}', sfn.JsonPath.stringAt(FIX.at('protected.approvalText'))),
    approval: {
      kind: PROTECTED_FIX_DECISION,
      buttons: [
        { decision: 'approve', label: 'Approve', style: 'primary' },
        { decision: 'reject', label: 'Reject', style: 'danger' },
      ],
    },
    timeout: props.timeout.toSeconds() >= 1 ? props.timeout : Duration.hours(48),
    result: FIX_APPROVAL,
    onFailure: noPullRequest(
      S.noteApprovalFailed,
      sfn.JsonPath.format(
        'asking for an approval of the change to protected paths failed ({}), so no pull request was opened.',
        sfn.JsonPath.stringAt(FAILURE.at('Error')),
      ),
    ),
  }).next(approved);
  const touched = sfn.Choice.jsonPath(scope, S.protectedTouched)
    .when(sfn.Condition.stringEquals(FIX.at('protected.verdict'), 'clear'), props.open)
    .when(sfn.Condition.stringEquals(FIX.at('protected.verdict'), 'approval'), approval)
    .otherwise(refused);
  return check.next(touched);
}
