import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { handler as DrainHandler } from '../lambdas/handlers/drain.ts';
import type { handler as RegisterWaitHandler } from '../lambdas/handlers/register-wait.ts';
import type { WaitAccepts } from '../lambdas/kernel/model.ts';
import { KERNEL_FUNCTIONS, TASK_FUNCTION_TIMEOUT_SECONDS } from './kernel-functions.ts';
import { DRAINED_FIELDS, type DrainedResult, KERNEL_STATE } from './kernel-state.ts';
import { payloadSelector } from './result-paths.ts';
import { type TaskInputOf, taskPayload } from './task-payload.ts';

/**
 * The kernel fragments: the states every workflow builds its graph from.
 * Each one is a JSONPath state (no `Assign`, no JSONata: the local runtime would ignore
 * them), and each Task carries an explicit `TimeoutSeconds` and a Retry limited to
 * transient errors, so the workflows cannot forget either.
 *
 * State inputs follow `KernelState` (kernel-state.ts: `ExecutionInput` and the fragments'
 * slots), whose paths the fragments take from `KERNEL_STATE`: `$.conversationId`, `$.channel`,
 * `$.threadTs` and `$.turn` are present throughout an execution.
 */

import { LAMBDA_TRANSIENT_ERRORS } from './error-names.ts';

export { DYNAMODB_TRANSIENT_ERRORS, LAMBDA_TRANSIENT_ERRORS } from './error-names.ts';

/**
 * Task timeout of the kernel's Lambda tasks: twice the functions' own timeout, so a
 * Lambda that runs to its limit fails as a Lambda error (retried) before the task times out.
 */
export const KERNEL_TASK_TIMEOUT = Duration.seconds(
  2 *
    Math.max(
      KERNEL_FUNCTIONS.RegisterWait.timeoutSeconds,
      KERNEL_FUNCTIONS.Drain.timeoutSeconds,
      KERNEL_FUNCTIONS.SlackPost.timeoutSeconds,
      TASK_FUNCTION_TIMEOUT_SECONDS,
    ),
);

/** Task timeout of direct DynamoDB updates: one request, so seconds are plenty. */
export const DYNAMODB_TASK_TIMEOUT = Duration.seconds(20);

/** Where `waitForPeople` puts the wake result: what RegisterWait or the Router sends. */
const WAKE = KERNEL_STATE.slot('wake');
/** Where `drain` puts the drained messages: Drain's result without the invoke's envelope. */
export const DRAINED = KERNEL_STATE.slot('drained');
/** Where `catchTimeout` puts the `States.Timeout` error of a wait. */
export const TIMEOUT_PATH = KERNEL_STATE.slot('timedOut').path;
/** Where `catchFailure` puts the error of a task that failed after its retries. */
export const FAILURE = KERNEL_STATE.slot('failure');
export const FAILURE_PATH = FAILURE.path;
/** `closeOut`'s look for a person's message left unhandled. */
const UNHANDLED = KERNEL_STATE.slot('unhandled');

/**
 * The kernel's Retry for transient errors: four more attempts with full-jitter backoff from
 * one second, at most twenty seconds apart. Workflows use it for their own tasks too.
 */
export function transientRetry(errors: readonly string[]): sfn.RetryProps {
  return {
    errors: [...errors],
    interval: Duration.seconds(1),
    maxAttempts: 4,
    backoffRate: 2,
    maxDelay: Duration.seconds(20),
    jitterStrategy: sfn.JitterType.FULL,
  };
}

/** Adds `transientRetry(errors)` to a task. */
export function addTransientRetry(task: sfn.TaskStateBase, errors: readonly string[]): void {
  task.addRetry(transientRetry(errors));
}

export interface WaitForPeopleProps {
  /**
   * The state's name in the execution graph, e.g. 'Wait for reporter'.
   * @default - the construct id
   */
  readonly stateName?: string;
  /** The RegisterWait function. */
  readonly registerWait: IFunction;
  /** Which incoming messages end the wait: `'any'` or the sender types listed. */
  readonly accepts: WaitAccepts;
  /** The conversation's phase while it waits, e.g. `awaiting_reporter`. */
  readonly phase: string;
  /** How long to wait before the task fails with `States.Timeout` (I6: no wait is endless). */
  readonly timeout: Duration;
  /**
   * The conversation's status while it waits (e.g. `pending_verification`), set with the wait
   * by RegisterWait: no separate "Mark" state before it.
   * @default - unchanged
   */
  readonly status?: string;
}

/**
 * Waits for people: a `.waitForTaskToken` task that hands RegisterWait the
 * token and what the wait accepts. RegisterWait or the Router completes it with
 * `WakeOutput`, found at `$.wake`. Add the timeout path with `catchTimeout`.
 */
export function waitForPeople(scope: Construct, id: string, props: WaitForPeopleProps): tasks.LambdaInvoke {
  const task = tasks.LambdaInvoke.jsonPath(scope, id, {
    ...stateNameProp(props.stateName),
    lambdaFunction: props.registerWait,
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    payload: taskPayload<TaskInputOf<typeof RegisterWaitHandler>>({
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      taskToken: sfn.JsonPath.taskToken,
      accepts: props.accepts,
      phase: props.phase,
      ...(props.status === undefined ? {} : { status: props.status }),
    }),
    taskTimeout: sfn.Timeout.duration(props.timeout),
    resultPath: WAKE.path,
    retryOnServiceExceptions: false,
  });
  // A retried RegisterWait records the new token over the old one, so retrying is safe.
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  return task;
}

/**
 * Routes a wait's `States.Timeout` to `handler`, keeping the state and putting the error at
 * `$.timedOut`. Returns the task for chaining.
 */
export function catchTimeout(task: sfn.TaskStateBase, handler: sfn.IChainable): sfn.TaskStateBase {
  return task.addCatch(handler, { errors: [sfn.Errors.TIMEOUT], resultPath: TIMEOUT_PATH });
}

/**
 * Routes any error left after a task's retries to `handler` (every Task has a
 * Catch that ends in a defined state), putting `{ Error, Cause }` at `$.failure`. Add it
 * after `catchTimeout`: the first matching catcher wins.
 */
export function catchFailure<T extends sfn.TaskStateBase | sfn.Map>(task: T, handler: sfn.IChainable): T {
  task.addCatch(handler, { errors: [sfn.Errors.ALL], resultPath: FAILURE_PATH });
  return task;
}

export interface NextTurnProps {
  /**
   * The state's name in the execution graph.
   * @default - the construct id
   */
  readonly stateName?: string;
}

/**
 * Bumps `$.turn` by one, keeping the rest of the state (see `incrementCounter`).
 */
export function nextTurn(scope: Construct, id: string, props: NextTurnProps = {}): sfn.Pass {
  return incrementCounter(scope, id, { ...props, field: 'turn' });
}

export interface IncrementCounterProps extends NextTurnProps {
  /** The top-level number field to bump, e.g. `turn`; it must be present. */
  readonly field: string;
}

/**
 * Bumps the number at `$.<field>` by one, keeping the rest of the state. JSONPath cannot
 * write a bare number into place (a Pass's Parameters is an object), so the state is merged
 * with `{"<field>": n+1}` and the merge result becomes the output.
 */
export function incrementCounter(scope: Construct, id: string, props: IncrementCounterProps): sfn.Pass {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(props.field)) {
    throw new Error(`${id}: incrementCounter needs a plain top-level field name, not "${props.field}"`);
  }
  const bumped = sfn.JsonPath.stringToJson(
    sfn.JsonPath.format(
      `\\{"${props.field}":{}\\}`,
      sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt(`$.${props.field}`), 1),
    ),
  );
  return sfn.Pass.jsonPath(scope, id, {
    ...stateNameProp(props.stateName),
    ...replaceState(sfn.JsonPath.jsonMerge(sfn.JsonPath.entirePayload, bumped)),
  });
}

/**
 * A Pass's `parameters` and `outputPath` that make `merged` (an intrinsic's object, e.g. a
 * `jsonMerge` with the state) the whole new state: Parameters is an object, so the merge goes
 * under `state` and the output keeps that field of the Pass's own output.
 */
export function replaceState(merged: string): { parameters: { state: string }; outputPath: string } {
  return { parameters: { state: merged }, outputPath: '$.state' };
}

export interface CloseOutProps {
  /** The Drain function. */
  readonly drainFn: IFunction;
  /**
   * Names of the states: the closing turn, its Drain, the end, and the Fail of a failed Drain.
   * @default CLOSE_OUT_STATES
   */
  readonly stateNames?: Readonly<Record<keyof typeof CLOSE_OUT_STATES, string>>;
  /**
   * A post (a cosmetic `slackPost`, built by the workflow where its people are) saying the
   * close recorded messages no turn saw: one that arrived as a wait timed out, or during the
   * last turn. Its failure is caught into the end.
   * @default - nothing is said
   */
  readonly unhandledNotice?: sfn.TaskStateBase;
}

/** The states of the close-out's notice of unhandled messages. */
const UNHANDLED_NOTICE_STATES = {
  anyDrained: 'Anything drained at the close?',
  pick: 'Look for unhandled messages',
  anyUnhandled: 'Any message unhandled?',
} as const;

/** The close-out's state names, the same in every workflow. */
export const CLOSE_OUT_STATES = {
  closingTurn: 'Closing turn',
  cleanUp: 'Clean up',
  done: 'Done',
  cleanUpFailed: 'Clean-up failed',
} as const satisfies Record<string, string>;

/**
 * The end of a conversation already marked finished: a closing turn whose Drain records the
 * messages that came after the last agent turn (I3: "or recorded with the conversation's
 * close") and clears the open wait, if any, so no Router tries to wake the execution again.
 * The conversation is finished already: a failed clean-up fails the execution, visibly,
 * without marking the conversation failed. Returns the closing turn, to chain the marks into.
 */
export function closeOut(scope: Construct, props: CloseOutProps): sfn.Pass {
  const names = props.stateNames ?? CLOSE_OUT_STATES;
  const cleanUp = drain(scope, names.cleanUp, { drainFn: props.drainFn });
  catchFailure(
    cleanUp,
    sfn.Fail.jsonPath(scope, names.cleanUpFailed, {
      errorPath: FAILURE.at('Error'),
      causePath: FAILURE.at('Cause'),
    }),
  );
  const closingTurn = nextTurn(scope, names.closingTurn);
  const done = new sfn.Succeed(scope, names.done);
  closingTurn.next(cleanUp);
  const say = props.unhandledNotice;
  if (say === undefined) {
    cleanUp.next(done);
    return closingTurn;
  }
  const N = UNHANDLED_NOTICE_STATES;
  // People's messages only: the close itself ("never mind") and button presses were handled.
  const pick = sfn.Pass.jsonPath(scope, N.pick, {
    parameters: {
      any: sfn.JsonPath.arrayContains(sfn.JsonPath.listAt(DRAINED.at('messages[*].messageType')), 'message'),
    },
    resultPath: UNHANDLED.path,
  });
  catchFailure(say, done);
  say.next(done);
  pick.next(
    sfn.Choice.jsonPath(scope, N.anyUnhandled)
      .when(sfn.Condition.booleanEquals(UNHANDLED.at('any'), true), say)
      .otherwise(done),
  );
  // A wildcard over no messages points at nothing: look only when something was drained.
  cleanUp.next(
    sfn.Choice.jsonPath(scope, N.anyDrained)
      .when(sfn.Condition.isPresent(DRAINED.at('messages[0]')), pick)
      .otherwise(done),
  );
  return closingTurn;
}

export interface DrainProps {
  /**
   * The state's name in the execution graph, e.g. 'Drain messages'.
   * @default - the construct id
   */
  readonly stateName?: string;
  /** The Drain function. */
  readonly drainFn: IFunction;
  /**
   * The status and/or phase the conversation takes as the turn begins, written by Drain in the
   * same request that ends the wait (one state and one request fewer per turn
   * than a "Mark" state before it).
   * @default - unchanged
   */
  readonly mark?: { readonly status?: string; readonly phase?: string };
}

/**
 * Hands the pending messages to turn `$.turn` and puts `DrainOutput`
 * (`turn`, `closeRequested`, `count`, `messages`) at `$.drained`. Drain is idempotent per
 * turn, so it is retried like any transient failure.
 */
export function drain(scope: Construct, id: string, props: DrainProps): tasks.LambdaInvoke {
  const task = tasks.LambdaInvoke.jsonPath(scope, id, {
    ...stateNameProp(props.stateName),
    lambdaFunction: props.drainFn,
    payload: taskPayload<TaskInputOf<typeof DrainHandler>>({
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      turn: sfn.JsonPath.numberAt(KERNEL_STATE.at('turn')),
      ...(props.mark === undefined ? {} : { mark: { ...props.mark } }),
    }),
    // Keep the Lambda response envelope (StatusCode, headers) out of the state.
    resultSelector: payloadSelector<DrainedResult>(DRAINED_FIELDS),
    resultPath: DRAINED.path,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  return task;
}

/** `{ stateName }` when given: the fragments' optional state names. */
export function stateNameProp(stateName: string | undefined): { stateName?: string } {
  return stateName === undefined ? {} : { stateName };
}

/** What a workflow's `build` gets from the stack: the task functions, table and config. */
export function describeDuration(seconds: number): string {
  const unit = (value: number, name: string) => `${value} ${name}${value === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}
