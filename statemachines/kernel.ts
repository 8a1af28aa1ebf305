import { Duration } from 'aws-cdk-lib';
import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { SlackAgentsConfig } from '../infra/config.ts';
import type { ConversationStatus, SenderType, WaitAccepts } from '../lambdas/kernel/model.ts';
import type { Trigger } from '../lambdas/kernel/workflows.ts';
import type { SlackTemplateName } from '../lambdas/slack/templates/index.ts';
import { FUNCTIONS } from './kernel-functions.ts';

/**
 * The kernel fragments (DESIGN 3): the states every workflow builds its graph from.
 * Each one is a JSONPath state (no `Assign`, no JSONata: the local runtime would ignore
 * them), and each Task carries an explicit `TimeoutSeconds` and a Retry limited to
 * transient errors, so the workflows cannot forget either.
 *
 * State inputs follow `ExecutionInput` (lambdas/kernel/tasks.ts): `$.conversationId`,
 * `$.channel`, `$.threadTs` and `$.turn` are present throughout an execution.
 */

/**
 * Errors worth retrying: of the Lambda service itself, and the transient errors our code
 * lets through (throttling and server errors of DynamoDB and Step Functions inside the
 * function, Slack unreachable or rate-limiting past the client's own retries). Validation
 * and "not found" errors are not here: retrying cannot fix them.
 */
export const LAMBDA_TRANSIENT_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'SlackUnavailableError',
] as const;

/** Throttling and server errors of the direct DynamoDB integration: safe to retry. */
export const DYNAMODB_TRANSIENT_ERRORS = [
  'DynamoDB.ProvisionedThroughputExceededException',
  'DynamoDB.RequestLimitExceeded',
  'DynamoDB.ThrottlingException',
  'DynamoDB.InternalServerError',
] as const;

/**
 * Task timeout of the kernel's Lambda tasks: twice the functions' own timeout, so a
 * Lambda that runs to its limit fails as a Lambda error (retried) before the task times out.
 */
export const KERNEL_TASK_TIMEOUT = Duration.seconds(
  2 *
    Math.max(
      FUNCTIONS.RegisterWait.timeoutSeconds,
      FUNCTIONS.Drain.timeoutSeconds,
      FUNCTIONS.SlackPost.timeoutSeconds,
    ),
);

/** Task timeout of direct DynamoDB updates: one request, so seconds are plenty. */
export const DYNAMODB_TASK_TIMEOUT = Duration.seconds(20);

/** Where `waitForPeople` puts the wake result (`WakeOutput`). */
export const WAKE_PATH = '$.wake';
/** Where `drain` puts the drained messages (`DrainOutput`). */
export const DRAINED_PATH = '$.drained';
/** Where `catchTimeout` puts the `States.Timeout` error of a wait. */
export const TIMEOUT_PATH = '$.timedOut';
/** Where `catchFailure` puts the error of a task that failed after its retries. */
export const FAILURE_PATH = '$.failure';

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
}

/**
 * Waits for people (DESIGN 3.3): a `.waitForTaskToken` task that hands RegisterWait the
 * token and what the wait accepts. RegisterWait or the Router completes it with
 * `WakeOutput`, found at `$.wake`. Add the timeout path with `catchTimeout`.
 */
export function waitForPeople(scope: Construct, id: string, props: WaitForPeopleProps): tasks.LambdaInvoke {
  const task = tasks.LambdaInvoke.jsonPath(scope, id, {
    ...stateNameProp(props.stateName),
    lambdaFunction: props.registerWait,
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    // Shape: RegisterWaitInput (lambdas/kernel/tasks.ts).
    payload: sfn.TaskInput.fromObject({
      conversationId: sfn.JsonPath.stringAt('$.conversationId'),
      taskToken: sfn.JsonPath.taskToken,
      accepts: props.accepts,
      phase: props.phase,
    }),
    taskTimeout: sfn.Timeout.duration(props.timeout),
    resultPath: WAKE_PATH,
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
 * Routes any error left after a task's retries to `handler` (DESIGN 2: every Task has a
 * Catch that ends in a defined state), putting `{ Error, Cause }` at `$.failure`. Add it
 * after `catchTimeout`: the first matching catcher wins.
 */
export function catchFailure(task: sfn.TaskStateBase, handler: sfn.IChainable): sfn.TaskStateBase {
  return task.addCatch(handler, { errors: [sfn.Errors.ALL], resultPath: FAILURE_PATH });
}

export interface FailConversationProps {
  /** The conversations table. */
  readonly table: ITableRef;
  /**
   * Name of the state marking the conversation failed.
   * @default 'Mark failed'
   */
  readonly markStateName?: string;
  /**
   * Name of the Fail state that ends the execution.
   * @default 'Failed'
   */
  readonly failStateName?: string;
}

/**
 * The end of a failed conversation: marks it `failed` (so it is not left `active` forever,
 * I6) and fails the execution with the original error from `$.failure`. If even the mark
 * fails, the execution still fails.
 */
export function failConversation(scope: Construct, id: string, props: FailConversationProps): sfn.IChainable {
  const failed = sfn.Fail.jsonPath(scope, `${id} end`, {
    stateName: props.failStateName ?? 'Failed',
    errorPath: `${FAILURE_PATH}.Error`,
    causePath: `${FAILURE_PATH}.Cause`,
  });
  const mark = setConversationFields(scope, id, {
    stateName: props.markStateName ?? 'Mark failed',
    table: props.table,
    status: 'failed',
  });
  catchFailure(mark, failed);
  return mark.next(failed);
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
    parameters: { state: sfn.JsonPath.jsonMerge(sfn.JsonPath.entirePayload, bumped) },
    outputPath: '$.state',
  });
}

export interface CloseOutProps {
  /** The Drain function. */
  readonly drainFn: IFunction;
  /**
   * Names of the states: the closing turn, its Drain, the end, and the Fail of a failed Drain.
   * @default CLOSE_OUT_STATES
   */
  readonly stateNames?: Readonly<Record<keyof typeof CLOSE_OUT_STATES, string>>;
}

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
      errorPath: `${FAILURE_PATH}.Error`,
      causePath: `${FAILURE_PATH}.Cause`,
    }),
  );
  const closingTurn = nextTurn(scope, names.closingTurn);
  closingTurn.next(cleanUp).next(new sfn.Succeed(scope, names.done));
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
}

/**
 * Hands the pending messages to turn `$.turn` (DESIGN 3.3) and puts `DrainOutput`
 * (`turn`, `closeRequested`, `count`, `messages`) at `$.drained`. Drain is idempotent per
 * turn, so it is retried like any transient failure.
 */
export function drain(scope: Construct, id: string, props: DrainProps): tasks.LambdaInvoke {
  const task = tasks.LambdaInvoke.jsonPath(scope, id, {
    ...stateNameProp(props.stateName),
    lambdaFunction: props.drainFn,
    // Shape: DrainInput.
    payload: sfn.TaskInput.fromObject({
      conversationId: sfn.JsonPath.stringAt('$.conversationId'),
      turn: sfn.JsonPath.numberAt('$.turn'),
    }),
    // Keep the Lambda response envelope (StatusCode, headers) out of the state.
    resultSelector: {
      turn: sfn.JsonPath.numberAt('$.Payload.turn'),
      closeRequested: sfn.JsonPath.stringAt('$.Payload.closeRequested'),
      count: sfn.JsonPath.numberAt('$.Payload.count'),
      messages: sfn.JsonPath.listAt('$.Payload.messages'),
    },
    resultPath: DRAINED_PATH,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  return task;
}

export interface SlackPostAnchor {
  /** The anchor's name within the conversation, e.g. `summary`. */
  readonly name: string;
  /** Role of the thread's owner. */
  readonly ownerRole: SenderType | null;
  /** Role of anyone else in the thread; null ignores them. */
  readonly othersRole: SenderType | null;
}

export interface SlackPostProps {
  /**
   * The state's name in the execution graph, e.g. 'Reply to reporter'.
   * @default - the construct id
   */
  readonly stateName?: string;
  /** The SlackPost function. */
  readonly slackPostFn: IFunction;
  /** Channel id: a literal, or `JsonPath.stringAt('$.channel')`. */
  readonly channel: string;
  /**
   * Thread to reply in: a literal ts or `JsonPath.stringAt('$.threadTs')`.
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
   * A message template SlackPost renders (lambdas/slack/templates): its name and its data,
   * whose values may be JSONPath references (`JsonPath.objectAt('$.result')`).
   * @default - none: `text` is required then
   */
  readonly template?: { readonly name: SlackTemplateName; readonly data: Record<string, unknown> };
  /**
   * Register the posted message's thread as an anchor of the conversation.
   * @default - no anchor
   */
  readonly anchor?: SlackPostAnchor;
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
}

/** Posts to Slack through the SlackPost function (`SlackPostInput`). */
export function slackPost(scope: Construct, id: string, props: SlackPostProps): tasks.LambdaInvoke {
  const stateName = props.stateName ?? id;
  if ((props.text === undefined) === (props.template === undefined)) {
    throw new Error(`${stateName}: slackPost needs either a text or a template`);
  }
  const idempotencyKey =
    props.idempotencyKey === undefined
      ? sfn.JsonPath.format(
          '{}:{}:{}',
          sfn.JsonPath.stringAt('$.conversationId'),
          stateName,
          sfn.JsonPath.stringAt('$.turn'),
        )
      : props.idempotencyKey;
  const task = tasks.LambdaInvoke.jsonPath(scope, id, {
    stateName,
    lambdaFunction: props.slackPostFn,
    payload: sfn.TaskInput.fromObject({
      conversationId: sfn.JsonPath.stringAt('$.conversationId'),
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
      ...(idempotencyKey === null ? {} : { idempotencyKey }),
    }),
    resultSelector: {
      channel: sfn.JsonPath.stringAt('$.Payload.channel'),
      ts: sfn.JsonPath.stringAt('$.Payload.ts'),
      threadTs: sfn.JsonPath.stringAt('$.Payload.threadTs'),
    },
    resultPath: props.resultPath ?? sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  return task;
}

export interface SetConversationFieldsProps {
  /**
   * The state's name in the execution graph, e.g. 'Mark resolved'.
   * @default - the construct id
   */
  readonly stateName?: string;
  /** The conversations table. */
  readonly table: ITableRef;
  /**
   * New status of the conversation.
   * @default - unchanged
   */
  readonly status?: ConversationStatus;
  /**
   * New phase of the conversation, e.g. `investigating`.
   * @default - unchanged
   */
  readonly phase?: string;
}

/**
 * Sets the conversation's status and/or phase with the direct DynamoDB integration (no
 * logic, so no Lambda: DESIGN 2). The update is conditional on the conversation existing,
 * so a wrong id fails the task instead of creating a stray item.
 */
export function setConversationFields(
  scope: Construct,
  id: string,
  props: SetConversationFieldsProps,
): tasks.DynamoUpdateItem {
  const fields = { status: props.status, phase: props.phase };
  const set = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (set.length === 0) throw new Error(`${id}: setConversationFields needs a status or a phase to set`);
  const task = tasks.DynamoUpdateItem.jsonPath(scope, id, {
    ...stateNameProp(props.stateName),
    table: props.table,
    key: {
      pk: tasks.DynamoAttributeValue.fromString(
        sfn.JsonPath.format('CONV#{}', sfn.JsonPath.stringAt('$.conversationId')),
      ),
      sk: tasks.DynamoAttributeValue.fromString('META'),
    },
    // `status` is a DynamoDB reserved word: every field goes through a name placeholder.
    updateExpression: `SET ${set.map(([name]) => `#${name} = :${name}`).join(', ')}`,
    conditionExpression: 'attribute_exists(pk)',
    expressionAttributeNames: Object.fromEntries(set.map(([name]) => [`#${name}`, name])),
    expressionAttributeValues: Object.fromEntries(
      set.map(([name, value]) => [`:${name}`, tasks.DynamoAttributeValue.fromString(value)]),
    ),
    resultPath: sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(DYNAMODB_TASK_TIMEOUT),
  });
  addTransientRetry(task, DYNAMODB_TRANSIENT_ERRORS);
  return task;
}

/**
 * A JSON `null` in a task payload. CDK drops null-valued fields when it renders a payload,
 * and SlackPostInput needs the anchor's roles present even when null ("ignore them").
 */
const JSON_NULL = sfn.JsonPath.stringToJson('null');

function stateNameProp(stateName: string | undefined): { stateName?: string } {
  return stateName === undefined ? {} : { stateName };
}

/** What a workflow's `build` gets from the stack: the task functions, table and config. */
export interface KernelResources {
  readonly registerWait: IFunction;
  readonly drain: IFunction;
  readonly slackPost: IFunction;
  /** One agent turn of any profile (`AgentTurnInput` -> e.g. `BugTurnOutput`). */
  readonly agentTurn: IFunction;
  /** SLA tracking's acknowledgement check (`SlaCheckInput` -> `SlaCheckOutput`). */
  readonly slaCheck: IFunction;
  readonly table: ITableRef;
  readonly config: SlackAgentsConfig;
}

/**
 * A state machine a workflow starts by itself, fire and forget (the bug investigation's
 * SlaTracking). The stack deploys it beside its parent, lets the parent start it, and hands
 * it to the parent's `build`; the Router never starts it.
 */
export interface ChildWorkflowDefinition {
  /**
   * Lower snake case, e.g. `sla_tracking`: the `slack-agents:workflow` metadata of its state
   * machine and, in PascalCase, its logical id. Unique among all workflows and children.
   */
  readonly name: string;
  /**
   * Upper bound of one execution.
   * @default - none beyond Step Functions' own one year
   */
  readonly timeout?: Duration;
  /** Builds the definition's states in `scope`. */
  build(scope: Construct, kernel: KernelResources): sfn.IChainable;
}

/** A workflow's deployed children, by `ChildWorkflowDefinition.name`. */
export type WorkflowChildren = ReadonlyMap<string, sfn.IStateMachine>;

/** The deployed child named `name`; fails the synth when the workflow did not declare it. */
export function requireChild(children: WorkflowChildren, name: string): sfn.IStateMachine {
  const child = children.get(name);
  if (child === undefined) {
    throw new Error(`child state machine "${name}" is not deployed: declare it in the workflow's children`);
  }
  return child;
}

/**
 * A workflow: how its conversations start (written to the Router as a registration) and
 * the state machine definition its executions run.
 */
export interface WorkflowDefinition {
  /** Registration name, e.g. `bug_investigation` (lower snake case). */
  readonly name: string;
  /** How conversations begin; a function when they depend on configured channels. */
  readonly triggers: readonly Trigger[] | ((config: SlackAgentsConfig) => readonly Trigger[]);
  /** Role of the person who started the conversation, in its first thread. */
  readonly ownerRole: SenderType;
  /** Role of anyone else writing in that thread; null ignores them. */
  readonly othersRole: SenderType | null;
  /** Whether the owner's close intent ("never mind") ends the conversation. */
  readonly closeOnIntent: boolean;
  /**
   * Upper bound of one execution.
   * @default - none beyond Step Functions' own one year
   */
  readonly timeout?: Duration;
  /**
   * State machines this workflow starts itself (SlaTracking). Built before the workflow and
   * passed to its `build`.
   * @default - none
   */
  readonly children?: readonly ChildWorkflowDefinition[];
  /**
   * Whether executions start a fresh execution of their own state machine to continue the
   * conversation (continue-as-new, ahead of the 25,000-event history limit), with
   * `$$.StateMachine.Id`. The stack then lets the state machine start itself.
   * @default false
   */
  readonly continuesAsNew?: boolean;
  /** Builds the definition's states in `scope` (state names must be unique per workflow). */
  build(scope: Construct, kernel: KernelResources, children: WorkflowChildren): sfn.IChainable;
}

const WORKFLOW_NAME = /^[a-z][a-z0-9_]*$/;

/** Declares a workflow, checking its name early (the Router's registration schema requires it). */
export function defineWorkflow(definition: WorkflowDefinition): WorkflowDefinition {
  for (const { name } of [definition, ...(definition.children ?? [])]) {
    if (!WORKFLOW_NAME.test(name)) {
      throw new Error(`workflow name "${name}" must be lower snake case (${WORKFLOW_NAME})`);
    }
  }
  return definition;
}

/** The triggers of a workflow under a configuration. */
export function resolveTriggers(workflow: WorkflowDefinition, config: SlackAgentsConfig): Trigger[] {
  const triggers = typeof workflow.triggers === 'function' ? workflow.triggers(config) : workflow.triggers;
  return [...triggers];
}

/** A wait's length as people read it, for the texts workflows post: `7200` -> `2 hours`, `90` -> `90 seconds`. */
export function describeDuration(seconds: number): string {
  const unit = (value: number, name: string) => `${value} ${name}${value === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}
