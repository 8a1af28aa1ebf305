import { Aws, Duration } from 'aws-cdk-lib';
import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { INTEGRATION_ERRORS } from './error-names.ts';
import {
  addTransientRetry,
  DYNAMODB_TASK_TIMEOUT,
  DYNAMODB_TRANSIENT_ERRORS,
  transientRetry,
} from './kernel.ts';
import { CONVERSATION_VERSION_STAMP, conversationItemKey } from './kernel-records.ts';
import { KERNEL_STATE } from './kernel-state.ts';
import {
  ACCEPTED_HANDOVER_VERSIONS,
  HANDOVER_VERSION,
  HANDOVER_VERSION_FIELD,
  ownAliasArn,
} from './workflow-versions.ts';

/**
 * Continue-as-new for Step Functions: a long conversation hands itself to a
 * fresh execution of the same state machine before its history could reach the 25,000-event
 * limit. Step Functions has no such primitive, so it is three states: start the new execution
 * through the workflow's alias (derived from `$$.StateMachine.Id`, so no state machine needs
 * its own ARN in its definition), record it on the conversation, and succeed. The new execution
 * runs the version the alias points at now: the hand-over input says its shape version
 * (`handoverVersion`), which the next version accepts (statemachines/workflow-versions.ts).
 *
 * Hand over only where nothing is in flight: no open wait (its token would die with this
 * execution) and no drained-but-unprocessed messages. Pending messages stay pending in the
 * table, so the new execution's first Drain takes them: none is lost.
 */

/**
 * Errors of the `states:startExecution` integration worth retrying: throttling, the service's
 * own failures, and a timed-out call. Retrying a start is safe: Step Functions answers a
 * repeated StartExecution with the same name and input with the running execution.
 */
export const START_EXECUTION_TRANSIENT_ERRORS: readonly string[] = [
  INTEGRATION_ERRORS.startThrottled,
  INTEGRATION_ERRORS.startLimit,
  INTEGRATION_ERRORS.startService,
  sfn.Errors.TIMEOUT,
];

/** The error of a start whose execution name is taken: it started already. */
export const EXECUTION_ALREADY_EXISTS = INTEGRATION_ERRORS.startNameTaken;

/** The new execution's ARN in StartExecution's response (the API's shape, not the state's). */
const START_EXECUTION_ARN = '$.ExecutionArn';

/** Task timeout of a StartExecution call (one request). */
export const START_EXECUTION_TIMEOUT = Duration.seconds(30);

/** The input field marking an execution that continues a handed-over conversation. */
export const HANDED_OVER_FROM = 'handedOverFrom';

export interface ContinueAsNewProps {
  /** The conversations table (the new execution is recorded on the conversation). */
  readonly table: ITableRef;
  /**
   * Top-level fields of the state the new execution starts with. Each must be present
   * whenever the handover runs (a missing path fails the state).
   */
  readonly carry: readonly string[];
  /** Where to go when the new execution could not be started: carry on in this one. */
  readonly onStartFailure: sfn.IChainable;
  /** @default 'Hand over to a fresh execution' */
  readonly handOverStateName?: string;
  /** @default 'Record handover' */
  readonly recordStateName?: string;
  /** @default 'Handed over' */
  readonly doneStateName?: string;
}

/**
 * Starts `<conversationId>-<turn>` of this state machine's alias with the carried fields plus
 * `handoverVersion` and `handedOverFrom` (this execution's ARN, also linked in the console as
 * its parent), writes
 * its name and ARN to the conversation, and ends this execution. Returns the first state.
 *
 * Execution names are at most 80 characters; conversation ids are at most
 * `MAX_CONVERSATION_ID_LENGTH` (72, lambdas/kernel/keys.ts), which leaves room for the dash
 * and a turn of up to 7 digits.
 */
export function continueAsNew(scope: Construct, id: string, props: ContinueAsNewProps): sfn.IChainable {
  const handedOver = new sfn.Succeed(scope, `${id} done`, {
    stateName: props.doneStateName ?? 'Handed over',
  });
  const name = sfn.JsonPath.format(
    '{}-{}',
    sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
    sfn.JsonPath.stringAt(KERNEL_STATE.at('turn')),
  );

  // A CustomState: CDK's StepFunctionsStartExecution needs the state machine as an object,
  // and a state machine cannot reference its own ARN in its definition (a cycle).
  const input: Record<string, string | number> = Object.fromEntries(
    props.carry.map((field) => [`${field}.$`, `$.${field}`]),
  );
  input[HANDOVER_VERSION_FIELD] = HANDOVER_VERSION;
  input[`${HANDED_OVER_FROM}.$`] = '$$.Execution.Id';
  // Links the two executions in the Step Functions console, as `associateWithParent` does.
  input['AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$'] = '$$.Execution.Id';
  const start = new sfn.CustomState(scope, props.handOverStateName ?? 'Hand over to a fresh execution', {
    stateJson: {
      Type: 'Task',
      Resource: `arn:${Aws.PARTITION}:states:::states:startExecution`,
      Parameters: {
        'StateMachineArn.$': ownAliasArn(),
        'Name.$': name,
        Input: input,
      },
      ResultSelector: { 'executionArn.$': START_EXECUTION_ARN },
      ResultPath: KERNEL_STATE.at('handover'),
      TimeoutSeconds: START_EXECUTION_TIMEOUT.toSeconds(),
    },
  });
  start.addRetry(transientRetry(START_EXECUTION_TRANSIENT_ERRORS));
  // Taken name: the new execution exists (an earlier attempt started it); this one just ends.
  start.addCatch(handedOver, {
    errors: [EXECUTION_ALREADY_EXISTS],
    resultPath: KERNEL_STATE.at('handoverFailure'),
  });
  start.addCatch(props.onStartFailure, {
    errors: [sfn.Errors.ALL],
    resultPath: KERNEL_STATE.at('handoverFailure'),
  });

  const record = tasks.DynamoUpdateItem.jsonPath(scope, props.recordStateName ?? 'Record handover', {
    table: props.table,
    key: conversationItemKey(),
    updateExpression: `SET executionName = :name, executionArn = :arn, ${CONVERSATION_VERSION_STAMP.set}`,
    conditionExpression: 'attribute_exists(pk)',
    expressionAttributeNames: CONVERSATION_VERSION_STAMP.names,
    expressionAttributeValues: {
      ':name': tasks.DynamoAttributeValue.fromString(name),
      ':arn': tasks.DynamoAttributeValue.fromString(
        sfn.JsonPath.stringAt(KERNEL_STATE.at('handover.executionArn')),
      ),
      ...CONVERSATION_VERSION_STAMP.values,
    },
    resultPath: sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(DYNAMODB_TASK_TIMEOUT),
  });
  addTransientRetry(record, DYNAMODB_TRANSIENT_ERRORS);
  // The new execution runs either way: this one must end, not carry on beside it.
  record.addCatch(handedOver, { errors: [sfn.Errors.ALL], resultPath: KERNEL_STATE.at('handoverFailure') });

  start.next(record).next(handedOver);
  return start;
}

/** The error of an execution handed a state whose shape version this release does not read. */
export const HANDOVER_VERSION_NOT_ACCEPTED = 'HandoverVersionNotAccepted';

/**
 * The first state of a handed-over execution: goes on to `next` when the input's
 * `handoverVersion` is one this release reads (absent counts as 0, the release before the
 * field), and otherwise fails with an error that names the field, rather than running on a
 * state it would misread.
 */
export function acceptHandover(scope: Construct, id: string, next: sfn.IChainable): sfn.Choice {
  const field = `$.${HANDOVER_VERSION_FIELD}`;
  const rejected = new sfn.Fail(scope, `${id} rejected`, {
    stateName: 'Hand-over version not accepted',
    error: HANDOVER_VERSION_NOT_ACCEPTED,
    cause: `the input's ${HANDOVER_VERSION_FIELD} is not one this release reads (${ACCEPTED_HANDOVER_VERSIONS.join(', ')}; absent is 0)`,
  });
  // Rules in order, the first that matches decides: a comparison runs only on a present number
  // (Step Functions fails the execution on a comparison with a missing path).
  // `Not IsPresent` rather than `IsPresent: false`, which aws-local-stepfunctions (the
  // sandbox's runtime) evaluates as false for a missing field too.
  const absent = sfn.Condition.not(sfn.Condition.isPresent(field));
  const choice = sfn.Choice.jsonPath(scope, id, { stateName: 'Hand-over version accepted?' });
  if (ACCEPTED_HANDOVER_VERSIONS.includes(0)) choice.when(absent, next);
  choice.when(sfn.Condition.or(absent, sfn.Condition.not(sfn.Condition.isNumeric(field))), rejected);
  for (const version of ACCEPTED_HANDOVER_VERSIONS.filter((v) => v > 0)) {
    choice.when(sfn.Condition.numberEquals(field, version), next);
  }
  return choice.otherwise(rejected);
}
