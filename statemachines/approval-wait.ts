import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { handler as ApprovalWaitHandler } from '../lambdas/handlers/approval-wait.ts';
import type { ApprovalWaitResult } from '../lambdas/kernel/approval-wait.ts';
import { ApprovalRequest } from '../lambdas/kernel/approvals.ts';
import { addTransientRetry, catchFailure, KERNEL_TASK_TIMEOUT, LAMBDA_TRANSIENT_ERRORS } from './kernel.ts';
import { KERNEL_STATE } from './kernel-state.ts';
import { type ResultSlot, resultSlot } from './result-paths.ts';
import { type PostedMessage, slackPost } from './slack-post.ts';
import { type TaskInputOf, taskPayload } from './task-payload.ts';

/** Where an approval wait leaves its `ApprovalWaitResult`: `approvalResult(BUG_STATE.at('fixApproval'))`. */
export function approvalResult(path: `$.${string}`): ResultSlot<ApprovalWaitResult> {
  return resultSlot<ApprovalWaitResult>(path);
}

/**
 * What the result's place holds on the way to the result: the post's answer with the approval's
 * nonce, then beside it the wait's timeout error and the expiry's answer in the invoke's envelope.
 */
type OnTheWay = PostedMessage & {
  readonly approvalNonce: string;
  readonly timedOut: unknown;
  readonly expiry: { readonly Payload: ApprovalWaitResult };
};

/**
 * An approval wait: post Block Kit buttons and wait, bounded, for an authorized press.
 *
 * How to use it, in a workflow's `build`:
 *
 * ```ts
 * const approve = approvalWait(scope, 'Approve fix', {
 *   label: 'fix approval',
 *   slackPostFn: kernel.slackPost,          // or the module's own SlackPost (templates)
 *   approvalWaitFn: kernel.approvalWait,
 *   channel: sfn.JsonPath.stringAt(STATE.at('channel')),   // STATE = stateOf<TheWorkflowsState>()
 *   threadTs: sfn.JsonPath.stringAt(STATE.at('threadTs')),
 *   text: 'Open a pull request with this fix?',
 *   approval: { kind: 'approve_fix', buttons: [
 *     { decision: 'approve', label: 'Approve', style: 'primary' },
 *     { decision: 'reject', label: 'Reject', style: 'danger' } ] },
 *   timeout: Duration.hours(24),
 *   result: FIX_APPROVAL,                   // approvalResult(STATE.at('fixApproval'))
 *   onFailure: failed,
 * });
 * previous.next(approve).next(
 *   sfn.Choice.jsonPath(scope, 'Approved?')
 *     .when(sfn.Condition.stringEquals(FIX_APPROVAL.at('decision'), 'approve'), openPr)
 *     .otherwise(giveUp));
 * ```
 *
 * At `result` the chain leaves an `ApprovalWaitResult` (lambdas/kernel/approval-wait.ts):
 * `{ outcome: 'decided', kind, decision, by, at }` or `{ outcome: 'expired', kind, at }`.
 * Who may decide is `slackAgents.approvals[kind]`: declare the kind with its default roles in
 * the module's `decisions` (as the bug module declares `acknowledge_escalation`).
 *
 * The states: "Post <label>" (SlackPost opens the approval, then posts; exactly once through
 * its ledger), "Wait for <label>" (`.waitForTaskToken`: ApprovalWait parks the token on the
 * approval; the Router completes it on an authorized press of this approval's buttons), and
 * on `States.Timeout` "Expire <label>" (marks the approval expired unless a press won the
 * race, and replaces the buttons with "no decision by <time>") and "<label> expired" (moves
 * its answer into place). Every Task retries transient errors and catches the rest into
 * `onFailure` (with the error at `$.failure`).
 */
export interface ApprovalWaitProps {
  /** How the states name the decision in the execution graph, e.g. 'fix approval'. */
  readonly label: string;
  /** The SlackPost function that posts the buttons (the kernel's, or a module's with templates). */
  readonly slackPostFn: IFunction;
  /** The kernel's ApprovalWait function (`KernelResources.approvalWait`). */
  readonly approvalWaitFn: IFunction;
  /** Channel id: a literal or `JsonPath.stringAt(...)`. */
  readonly channel: string;
  /**
   * Thread to post in.
   * @default - a new top-level message
   */
  readonly threadTs?: string;
  /**
   * The message's text (give `text` or `template`).
   * @default - none: `template` is required then
   */
  readonly text?: string;
  /**
   * A template of `slackPostFn` and its data (give `text` or `template`).
   * @default - none: `text` is required then
   */
  readonly template?: { readonly name: string; readonly data: Record<string, unknown> };
  /** The decision kind and its buttons. */
  readonly approval: ApprovalRequest;
  /** How long to wait for a decision before it expires (required: I6, no wait is endless). */
  readonly timeout: Duration;
  /** Where the `ApprovalWaitResult` goes, e.g. `approvalResult(BUG_STATE.at('fixApproval'))` (a top-level field). */
  readonly result: ResultSlot<ApprovalWaitResult>;
  /** Where any task's error ends up, after its retries (a defined state). */
  readonly onFailure: sfn.IChainable;
  /**
   * The post's idempotency key. A chain that runs again within the same `$.turn` (asking
   * again after a rejection, say) needs a key that differs each time: the same key posts
   * once and opens the same approval, whose first decision would be the answer again.
   * @default - `<conversationId>:Post <label>:<turn>` (slackPost's default)
   */
  readonly idempotencyKey?: string;
}

/** The longest a wait may last: a Standard execution's own limit is a year. */
const MAX_WAIT = Duration.days(364);

/**
 * Builds the approval wait's chain (see above); chain what follows with `.next(...)`.
 * The result path is written over by the post's answer first, then by the result.
 */
export function approvalWait(scope: Construct, id: string, props: ApprovalWaitProps): sfn.Chain {
  const approval = ApprovalRequest.parse(props.approval);
  const seconds = props.timeout.toSeconds();
  if (!(seconds >= 1 && seconds <= MAX_WAIT.toSeconds())) {
    throw new Error(
      `${id}: an approval wait needs a timeout between 1 second and 364 days, not ${seconds} s`,
    );
  }
  const resultPath = props.result.path;
  if (!/^\$\.[A-Za-z][A-Za-z0-9]*$/.test(resultPath)) {
    throw new Error(`${id}: the result must be a top-level field such as $.fixApproval, not ${resultPath}`);
  }
  const { label } = props;
  const onTheWay = resultSlot<OnTheWay>(resultPath);

  const post = slackPost(scope, `${id} Post`, {
    stateName: `Post ${label}`,
    slackPostFn: props.slackPostFn,
    channel: props.channel,
    ...(props.threadTs === undefined ? {} : { threadTs: props.threadTs }),
    ...(props.text === undefined ? {} : { text: props.text }),
    ...(props.template === undefined ? {} : { template: props.template }),
    approval,
    keepApprovalNonce: true,
    ...(props.idempotencyKey === undefined ? {} : { idempotencyKey: props.idempotencyKey }),
    resultPath,
  });

  const wait = tasks.LambdaInvoke.jsonPath(scope, `${id} Wait`, {
    stateName: `Wait for ${label}`,
    lambdaFunction: props.approvalWaitFn,
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    payload: taskPayload<TaskInputOf<typeof ApprovalWaitHandler>>({
      step: 'park',
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      kind: approval.kind,
      nonce: sfn.JsonPath.stringAt(onTheWay.at('approvalNonce')),
      taskToken: sfn.JsonPath.taskToken,
    }),
    taskTimeout: sfn.Timeout.duration(props.timeout),
    resultPath,
    retryOnServiceExceptions: false,
  });
  // A retried park writes the retry's token over the old one: retrying is safe.
  addTransientRetry(wait, LAMBDA_TRANSIENT_ERRORS);

  const expire = tasks.LambdaInvoke.jsonPath(scope, `${id} Expire`, {
    stateName: `Expire ${label}`,
    lambdaFunction: props.approvalWaitFn,
    payload: taskPayload<TaskInputOf<typeof ApprovalWaitHandler>>({
      step: 'expire',
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      kind: approval.kind,
      nonce: sfn.JsonPath.stringAt(onTheWay.at('approvalNonce')),
    }),
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    resultPath: onTheWay.at('expiry'),
    retryOnServiceExceptions: false,
  });
  // Marking expired is conditional and keeps its first time: retrying is safe.
  addTransientRetry(expire, LAMBDA_TRANSIENT_ERRORS);
  // The Lambda's answer is wrapped ({ StatusCode, Payload }); the wait's is not: put both alike.
  const expired = new sfn.Pass(scope, `${id} Expired`, {
    stateName: `${label} expired`,
    inputPath: onTheWay.at('expiry.Payload'),
    resultPath,
  });
  expire.next(expired);

  // The post's answer stays at the result path (the nonce), the timeout error beside it.
  wait.addCatch(expire, { errors: [sfn.Errors.TIMEOUT], resultPath: onTheWay.at('timedOut') });
  for (const task of [post, wait, expire]) catchFailure(task, props.onFailure);

  post.next(wait);
  return sfn.Chain.custom(post, [wait, expired], wait);
}
