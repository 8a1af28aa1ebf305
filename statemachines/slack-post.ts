import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { createSlackPostHandler } from '../lambdas/handlers/slack-post.ts';
import { ApprovalRequest } from '../lambdas/kernel/approvals.ts';
import { SlackUnavailableError } from '../lambdas/slack/errors.ts';
import { errorName } from './error-names.ts';
import { addTransientRetry, KERNEL_TASK_TIMEOUT, LAMBDA_TRANSIENT_ERRORS } from './kernel.ts';
import { KERNEL_STATE } from './kernel-state.ts';
import { payloadSelector } from './result-paths.ts';
import { type TaskInputOf, type TaskResultOf, taskPayload } from './task-payload.ts';

/** What every SlackPost function (the kernel's, a workflow's) parses and returns. */
type SlackPostHandler = ReturnType<typeof createSlackPostHandler>;
/** The message a post's `resultPath` gets (and `approvalNonce` with `keepApprovalNonce`). */
export type PostedMessage = Pick<TaskResultOf<SlackPostHandler>, 'channel' | 'ts' | 'threadTs'>;

export interface SlackPostAnchor {
  /** The anchor's name within the conversation, e.g. `summary`. */
  readonly name: string;
  /** Role of the thread's owner. */
  readonly ownerRole: string | null;
  /** Role of anyone else in the thread; null ignores them. */
  readonly othersRole: string | null;
}

export interface SlackPostProps {
  /**
   * The state's name in the execution graph, e.g. 'Reply to reporter'.
   * @default - the construct id
   */
  readonly stateName?: string;
  /** The SlackPost function. */
  readonly slackPostFn: IFunction;
  /** Channel id: a literal, or a JSONPath (`JsonPath.stringAt(KERNEL_STATE.at('channel'))`). */
  readonly channel: string;
  /**
   * Thread to reply in: a literal ts or a JSONPath (`JsonPath.stringAt(KERNEL_STATE.at('threadTs'))`).
   * @default - a new top-level message
   */
  readonly threadTs?: string;
  /**
   * The text: a literal, `JsonPath.stringAt(...)` or `JsonPath.format(...)`. Give either
   * `text` or `template`.
   * @default - none: `template` is required then
   */
  readonly text?: string;
  /**
   * A message template the SlackPost function given renders (its workflow's templates): its name and its data,
   * whose values may be JSONPath references (`JsonPath.objectAt(TURN_RESULT.path)`).
   * @default - none: `text` is required then
   */
  readonly template?: { readonly name: string; readonly data: Record<string, unknown> };
  /**
   * Register the posted message's thread as an anchor of the conversation.
   * @default - no anchor
   */
  readonly anchor?: SlackPostAnchor;
  /**
   * Buttons for a decision (lambdas/kernel/approvals.ts): SlackPost appends them and opens
   * the approval on the conversation; presses are judged by the Router.
   * @default - no buttons
   */
  readonly approval?: ApprovalRequest;
  /**
   * Keep the opened approval's nonce (`approvalNonce`) beside the post's answer at
   * `resultPath`, for a wait on the approval (statemachines/approval-wait.ts does).
   * @default false
   */
  readonly keepApprovalNonce?: boolean;
  /**
   * Key that makes a retried post post once. `null` posts without one.
   * @default - `<conversationId>:<stateName>:<turn>`, unique per state and turn
   */
  readonly idempotencyKey?: string | null;
  /**
   * Where the posted message's `{ channel, ts, threadTs }` goes.
   * @default - discarded (the input passes through unchanged)
   */
  readonly resultPath?: string;
  /**
   * Whether people must see the post: an essential post retries Slack being unavailable for
   * about an hour and a half (`essentialPostRetry`). A cosmetic one (an acknowledgement, a
   * notice) retries briefly, and its caller catches its failure into the next state, so it
   * can never end a conversation.
   * @default true
   */
  readonly essential?: boolean;
  /**
   * Appends the conversation's estimated model cost to the message (a conversation's final
   * message).
   * @default false
   */
  readonly withCost?: boolean;
  /**
   * A message whose permalink the template gets as `data.permalink`: channel and ts, literals
   * or `JsonPath.stringAt(...)`. Only with `template`.
   * @default - no permalink
   */
  readonly permalinkOf?: { readonly channel: string; readonly ts: string };
}

/**
 * The Retry of a post people must see (a question, findings, an escalation, a failure
 * notice): Slack unavailable is retried for about an hour and a half (30 s doubling to at
 * most 30 min, eight times), so an outage of Slack delays the conversation instead of ending it.
 */
function essentialPostRetry(): sfn.RetryProps {
  return {
    errors: [errorName(SlackUnavailableError)],
    interval: Duration.seconds(30),
    maxAttempts: 8,
    backoffRate: 2,
    maxDelay: Duration.minutes(30),
    jitterStrategy: sfn.JitterType.FULL,
  };
}

/** Posts to Slack through the SlackPost function (`SlackPostInput`). */
export function slackPost(scope: Construct, id: string, props: SlackPostProps): tasks.LambdaInvoke {
  const stateName = props.stateName ?? id;
  if ((props.text === undefined) === (props.template === undefined)) {
    throw new Error(`${stateName}: slackPost needs either a text or a template`);
  }
  if (props.permalinkOf !== undefined && props.template === undefined) {
    throw new Error(`${stateName}: a permalink is handed to a template: give permalinkOf with a template`);
  }
  const idempotencyKey =
    props.idempotencyKey === undefined
      ? sfn.JsonPath.format(
          '{}:{}:{}',
          sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
          stateName,
          sfn.JsonPath.stringAt(KERNEL_STATE.at('turn')),
        )
      : props.idempotencyKey;
  const resultPath = props.resultPath ?? sfn.JsonPath.DISCARD;
  const task = tasks.LambdaInvoke.jsonPath(scope, id, {
    stateName,
    lambdaFunction: props.slackPostFn,
    payload: taskPayload<TaskInputOf<SlackPostHandler>>({
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      channel: props.channel,
      ...(props.threadTs === undefined ? {} : { threadTs: props.threadTs }),
      ...(props.text === undefined ? {} : { text: props.text }),
      ...(props.template === undefined
        ? {}
        : { template: { name: props.template.name, data: props.template.data } }),
      ...(props.anchor === undefined
        ? {}
        : {
            anchor: {
              name: props.anchor.name,
              ownerRole: props.anchor.ownerRole ?? JSON_NULL,
              othersRole: props.anchor.othersRole ?? JSON_NULL,
            },
          }),
      ...(props.approval === undefined ? {} : { approval: ApprovalRequest.parse(props.approval) }),
      ...(idempotencyKey === null ? {} : { idempotencyKey }),
      ...(props.withCost ? { withCost: true } : {}),
      ...(props.permalinkOf === undefined
        ? {}
        : { permalinkOf: { channel: props.permalinkOf.channel, ts: props.permalinkOf.ts } }),
    }),
    // A selector on a discarded result would only add a way to fail: a field the answer lacks
    // raises States.Runtime, which no Catch handles. Select only what the state keeps.
    ...(resultPath === sfn.JsonPath.DISCARD
      ? {}
      : {
          resultSelector: payloadSelector<TaskResultOf<SlackPostHandler>>([
            'channel',
            'ts',
            'threadTs',
            // Only for a wait on the approval (it parks by the nonce): the answer of any other post keeps its shape.
            ...(props.approval !== undefined && props.keepApprovalNonce === true
              ? ['approvalNonce' as const]
              : []),
          ]),
        }),
    resultPath,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  if (props.essential ?? true) {
    // The first matching retrier wins: Slack's outages get the long one.
    const long = essentialPostRetry();
    addTransientRetry(
      task,
      LAMBDA_TRANSIENT_ERRORS.filter((error) => !long.errors?.includes(error)),
    );
    task.addRetry(long);
  } else {
    addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  }
  return task;
}

/**
 * A JSON `null` in a task payload. CDK drops null-valued fields when it renders a payload,
 * and SlackPostInput needs the anchor's roles present even when null ("ignore them").
 */
const JSON_NULL = sfn.JsonPath.stringToJson('null');
