import { Duration } from 'aws-cdk-lib';
import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { ApprovalRequest } from '../../lambdas/kernel/approvals.ts';
import type { BugInvestigationSettings } from '../../lambdas/workflows/bug-investigation/config.ts';
import type { Severity } from '../../lambdas/workflows/bug-investigation/contract.ts';
import type { handler as SlaCheckHandler } from '../../lambdas/workflows/bug-investigation/handlers/sla-check.ts';
import {
  ACKNOWLEDGE_ESCALATION,
  type SlaTrackingInput,
} from '../../lambdas/workflows/bug-investigation/sla-check.ts';
import {
  EXECUTION_ALREADY_EXISTS,
  START_EXECUTION_TIMEOUT,
  START_EXECUTION_TRANSIENT_ERRORS,
} from '../continue-as-new.ts';
import { catchFailure, FAILURE, LAMBDA_TRANSIENT_ERRORS, replaceState, transientRetry } from '../kernel.ts';
import type { CaughtError } from '../kernel-state.ts';
import { payloadSelector, stateOf } from '../result-paths.ts';
import { slackPost } from '../slack-post.ts';
import { type TaskInputOf, type TaskResultOf, taskPayload } from '../task-payload.ts';
import { type ChildWorkflowDefinition, requireRoleGroup } from '../workflow-module.ts';
import { BUG_STATE } from './bug-state.ts';
import { BUG_FUNCTIONS, type BugFunctionId } from './functions.ts';
import { ESCALATION_POST, TURN_RESULT } from './states.ts';

/**
 * `SlaTracking` (`SLATrackingWorkflow`): the child a bug investigation starts,
 * fire and forget, when it escalates to developers. It waits for the acknowledgement
 * deadline of the escalation's severity, then checks whether a developer has answered since
 * the escalation post. If nobody has and the conversation is still open, it reminds the
 * on-call group in the escalation thread and escalates one level, up to
 * `config.sla.maxReminders` reminders; then it posts that the SLA was missed and stops.
 *
 * Every level waits the same per-severity deadline (`config.sla.acknowledgeMinutes`): a
 * critical escalation with the defaults is reminded after 15, 30 and 45 minutes and given
 * up on after 60. Execution input: `SlaTrackingInput`
 * (lambdas/workflows/bug-investigation/sla-check.ts), `level` 0.
 */

/**
 * The escalation message's button: on call acknowledges with it (`slackAgents.approvals`
 * `acknowledge_escalation`), and SlaCheck sees the decision, as it sees an on-call reply.
 */
export const ESCALATION_APPROVAL = {
  kind: ACKNOWLEDGE_ESCALATION,
  buttons: [{ decision: 'acknowledge', label: 'Acknowledge', style: 'primary' }],
} as const satisfies ApprovalRequest;

/** The states' names in the execution graph. */
const SLA_TRACKING_STATES = {
  lookUpDeadline: 'Look up deadline',
  unknownSeverity: 'Unknown severity',
  waitForAcknowledgement: 'Wait for acknowledgement',
  checkAcknowledgement: 'Check acknowledgement',
  acknowledged: 'Acknowledged?',
  postReminder: 'Post reminder',
  escalate: 'Escalate one level',
  giveUp: 'Give up',
  done: 'Done',
  failed: 'SLA tracking failed',
} as const;

/** Name of the state that sets a severity's deadline, e.g. `Critical deadline`. */
function deadlineStateName(severity: Severity): string {
  return `${severity[0]?.toUpperCase() ?? ''}${severity.slice(1)} deadline`;
}

type SlaCheckResult = TaskResultOf<typeof SlaCheckHandler>;

/** A SlaTracking execution's state: its input, its level's deadline, and the last check. */
type SlaState = SlaTrackingInput & {
  readonly deadlineMinutes: number;
  readonly deadlineSeconds: number;
  readonly check?: SlaCheckResult;
  readonly failure?: CaughtError;
};
const SLA = stateOf<SlaState>();
/** Where the check's result goes. */
const CHECKED = SLA.slot('check');

/** Twice the function's own timeout, so a Lambda that runs to its limit fails as a Lambda error first. */
const CHECK_TASK_TIMEOUT = Duration.seconds(2 * BUG_FUNCTIONS.SlaCheck.timeoutSeconds);

const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const satisfies readonly Severity[];

export interface SlaTrackingProps {
  /** The SlaCheck function (`SlaCheckInput` -> `SlaCheckOutput`). */
  readonly slaCheck: IFunction;
  /** The SlackPost function. */
  readonly slackPost: IFunction;
  /**
   * The conversations table. Not read by the definition today: the check reads the
   * conversation through SlaCheck, which has logic.
   */
  readonly table: ITableRef;
  /** The bug investigation's configuration: `sla`. */
  readonly settings: BugInvestigationSettings;
  /** The on-call group the reminders mention (`slackAgents.people.on_call`). */
  readonly onCallGroupId: string;
}

/**
 * Builds the SlaTracking definition. Its states are created in a child construct
 * `SlaTrackingStates` of `scope`, so they cannot clash with another workflow's construct ids
 * in the same scope; call it once per scope.
 */
function buildSlaTracking(scope: Construct, props: SlaTrackingProps): sfn.IChainable {
  const { settings: config } = props;
  const states = new Construct(scope, 'SlaTrackingStates');
  const names = SLA_TRACKING_STATES;
  const oncall = `<!subteam^${props.onCallGroupId}>`;

  const failed = sfn.Fail.jsonPath(states, 'Failed', {
    stateName: names.failed,
    errorPath: FAILURE.at('Error'),
    causePath: FAILURE.at('Cause'),
  });
  const done = sfn.Succeed.jsonPath(states, 'Done', { stateName: names.done });

  const waitForAcknowledgement = sfn.Wait.jsonPath(states, 'Wait', {
    stateName: names.waitForAcknowledgement,
    time: sfn.WaitTime.secondsPath(SLA.at('deadlineSeconds')),
  });

  // A Choice into one Pass per severity: JSONPath has no lookup into a literal table. Each
  // Pass rebuilds the state from the known fields, which also drops the previous check.
  const lookUpDeadline = sfn.Choice.jsonPath(states, 'Look up deadline', { stateName: names.lookUpDeadline });
  for (const severity of SEVERITIES) {
    const minutes = config.sla.acknowledgeMinutes[severity];
    const setDeadline = sfn.Pass.jsonPath(states, `${severity} deadline`, {
      stateName: deadlineStateName(severity),
      parameters: {
        conversationId: sfn.JsonPath.stringAt(SLA.at('conversationId')),
        channel: sfn.JsonPath.stringAt(SLA.at('channel')),
        threadTs: sfn.JsonPath.stringAt(SLA.at('threadTs')),
        severity: sfn.JsonPath.stringAt(SLA.at('severity')),
        level: sfn.JsonPath.numberAt(SLA.at('level')),
        deadlineMinutes: minutes,
        deadlineSeconds: minutes * 60,
      },
    });
    lookUpDeadline.when(
      sfn.Condition.stringEquals(SLA.at('severity'), severity),
      setDeadline.next(waitForAcknowledgement),
    );
  }
  // The parent validates the severity (BugTurnOutput); anything else is its defect: fail loudly.
  lookUpDeadline.otherwise(
    sfn.Fail.jsonPath(states, 'Unknown severity', {
      stateName: names.unknownSeverity,
      error: 'UnknownSeverity',
      cause: `severity must be one of ${SEVERITIES.join(', ')}`,
    }),
  );

  const check = tasks.LambdaInvoke.jsonPath(states, 'Check', {
    stateName: names.checkAcknowledgement,
    lambdaFunction: props.slaCheck,
    payload: taskPayload<TaskInputOf<typeof SlaCheckHandler>>({
      conversationId: sfn.JsonPath.stringAt(SLA.at('conversationId')),
      since: sfn.JsonPath.stringAt(SLA.at('threadTs')),
    }),
    resultSelector: payloadSelector<SlaCheckResult>(['acknowledged', 'closed', 'reason']),
    resultPath: CHECKED.path,
    taskTimeout: sfn.Timeout.duration(CHECK_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  // The check only reads, so retrying it is always safe; the same policy as the kernel's tasks.
  check.addRetry({
    errors: [...LAMBDA_TRANSIENT_ERRORS],
    interval: Duration.seconds(1),
    maxAttempts: 4,
    backoffRate: 2,
    maxDelay: Duration.seconds(20),
    jitterStrategy: sfn.JitterType.FULL,
  });

  // Keys include the escalation's ts: a conversation escalated twice gets its reminders twice.
  const postReminder = slackPost(states, 'Post reminder', {
    stateName: names.postReminder,
    slackPostFn: props.slackPost,
    channel: sfn.JsonPath.stringAt(SLA.at('channel')),
    threadTs: sfn.JsonPath.stringAt(SLA.at('threadTs')),
    text: sfn.JsonPath.format(
      `${oncall} SLA reminder: not acknowledged after {} minutes; escalating to level {}`,
      sfn.JsonPath.stringAt(SLA.at('deadlineMinutes')),
      sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt(SLA.at('level')), 1),
    ),
    idempotencyKey: sfn.JsonPath.format(
      '{}:sla:{}:reminder:{}',
      sfn.JsonPath.stringAt(SLA.at('conversationId')),
      sfn.JsonPath.stringAt(SLA.at('threadTs')),
      sfn.JsonPath.stringAt(SLA.at('level')),
    ),
  });
  const giveUp = slackPost(states, 'Give up', {
    stateName: names.giveUp,
    slackPostFn: props.slackPost,
    channel: sfn.JsonPath.stringAt(SLA.at('channel')),
    threadTs: sfn.JsonPath.stringAt(SLA.at('threadTs')),
    text: sfn.JsonPath.format(
      `${oncall} SLA missed: this {} severity escalation was not acknowledged after {} reminder(s). No more reminders will be sent.`,
      sfn.JsonPath.stringAt(SLA.at('severity')),
      sfn.JsonPath.stringAt(SLA.at('level')),
    ),
    idempotencyKey: sfn.JsonPath.format(
      '{}:sla:{}:gave-up',
      sfn.JsonPath.stringAt(SLA.at('conversationId')),
      sfn.JsonPath.stringAt(SLA.at('threadTs')),
    ),
  });
  for (const task of [check, postReminder, giveUp]) catchFailure(task, failed);

  // As `nextTurn` in kernel.ts: JSONPath cannot write a bare number into place, so the state
  // is merged with `{"level": level + 1}`.
  const escalate = sfn.Pass.jsonPath(states, 'Escalate', {
    stateName: names.escalate,
    ...replaceState(
      sfn.JsonPath.jsonMerge(
        sfn.JsonPath.entirePayload,
        sfn.JsonPath.stringToJson(
          sfn.JsonPath.format(
            '\\{"level":{}\\}',
            sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt(SLA.at('level')), 1),
          ),
        ),
      ),
    ),
  });

  const acknowledged = sfn.Choice.jsonPath(states, 'Acknowledged', { stateName: names.acknowledged })
    .when(
      sfn.Condition.or(
        sfn.Condition.booleanEquals(CHECKED.at('acknowledged'), true),
        sfn.Condition.booleanEquals(CHECKED.at('closed'), true),
      ),
      done,
    )
    .when(sfn.Condition.numberGreaterThanEquals(SLA.at('level'), config.sla.maxReminders), giveUp.next(done))
    .otherwise(postReminder.next(escalate).next(lookUpDeadline));

  waitForAcknowledgement.next(check).next(acknowledged);
  return lookUpDeadline;
}

/** SlaTracking as the bug investigation's child ("Bug investigation (+ SLA tracking child)"). */
export const SLA_TRACKING: ChildWorkflowDefinition<BugFunctionId, BugInvestigationSettings> = {
  name: 'sla_tracking',
  build: (scope, { functions, table, settings, config }) =>
    buildSlaTracking(scope, {
      slaCheck: functions.SlaCheck,
      slackPost: functions.BugInvestigationSlackPost,
      table,
      settings,
      onCallGroupId: requireRoleGroup(config, 'on_call'),
    }),
};

/**
 * The parent's start of a SlaTracking for its last escalation post (`SlaTrackingInput`, level
 * 0), fire and forget; then `next`, whether it started, had started already, or failed.
 */
export function startSlaTrackingOf(
  scope: Construct,
  stateName: string,
  props: { readonly stateMachine: sfn.IStateMachine; readonly next: sfn.IChainable },
): tasks.StepFunctionsStartExecution {
  const start = tasks.StepFunctionsStartExecution.jsonPath(scope, stateName, {
    stateMachine: props.stateMachine,
    integrationPattern: sfn.IntegrationPattern.REQUEST_RESPONSE,
    // One SLA per escalation: a retried start finds its execution instead of a second one.
    name: sfn.JsonPath.format(
      '{}-{}',
      sfn.JsonPath.stringAt(BUG_STATE.at('conversationId')),
      sfn.JsonPath.stringAt(BUG_STATE.at('turn')),
    ),
    associateWithParent: true,
    input: taskPayload<SlaTrackingInput>({
      conversationId: sfn.JsonPath.stringAt(BUG_STATE.at('conversationId')),
      channel: sfn.JsonPath.stringAt(ESCALATION_POST.at('channel')),
      threadTs: sfn.JsonPath.stringAt(ESCALATION_POST.at('ts')),
      severity: sfn.JsonPath.stringAt(TURN_RESULT.at('severity')),
      level: 0,
    }),
    resultPath: sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(START_EXECUTION_TIMEOUT),
  });
  start.addRetry(transientRetry(START_EXECUTION_TRANSIENT_ERRORS));
  // Started already (an earlier attempt got through): carry on.
  start.addCatch(props.next, { errors: [EXECUTION_ALREADY_EXISTS], resultPath: sfn.JsonPath.DISCARD });
  // On call was paged already: without reminders the conversation goes on (the error stays
  // at $.slaStartFailure) rather than fail and leave the developers' answers unheard.
  start.addCatch(props.next, { errors: [sfn.Errors.ALL], resultPath: BUG_STATE.at('slaStartFailure') });
  return start;
}
