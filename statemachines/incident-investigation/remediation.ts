import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { handler as IncidentRemediation } from '../../lambdas/workflows/incident-investigation/handlers/remediation.ts';
import { approvalResult } from '../approval-wait.ts';
import { addTransientRetry, catchFailure, FAILURE, LAMBDA_TRANSIENT_ERRORS } from '../kernel.ts';
import { type TaskInputOf, taskPayload } from '../task-payload.ts';
import type { KernelResources } from '../workflow-module.ts';
import { type IncidentFunctionId, REMEDIATION_TIMEOUT_SECONDS } from './functions.ts';
import { INCIDENT_STATE } from './incident-state.ts';
import { INCIDENT_STATES, STEP, STEP_DECISION } from './states.ts';
import { stepApproval } from './step-approval.ts';
import { recordsTask, showPhase } from './tasks.ts';

/** Where the decision on a step's approval is kept. */
const STEP_APPROVAL = approvalResult(INCIDENT_STATE.at('stepApproval'));

/**
 * The remediation steps, one at a time (its REMEDIATE): the next step; when it needs an
 * approval, its buttons and the bounded wait for an authorized press, then the decision as the
 * Router stored it; the run (through the step's skill, with its rollback on failure) and the
 * plan's message updated. A rejection, a failure or an expired approval stops the plan, and a
 * run that fails after its retries fails it (the records say why, the plan's message shows it); then `finish`. Returns the first state.
 */
export function remediationSteps(
  scope: Construct,
  kernel: KernelResources<IncidentFunctionId, IncidentInvestigationSettings>,
  props: { finish: sfn.IChainable; failed: sfn.IChainable },
): sfn.IChainable {
  const S = INCIDENT_STATES;
  const records = kernel.functions.IncidentRecords;
  const progress = kernel.functions.IncidentProgress;

  const next = recordsTask(scope, S.nextStep, { fn: records, op: 'next_step', resultPath: STEP.path });
  catchFailure(next, props.failed);
  const showStep = showPhase(scope, S.showStep, { fn: progress, phase: 'remediation', next });

  const run = tasks.LambdaInvoke.jsonPath(scope, S.runStep, {
    stateName: S.runStep,
    lambdaFunction: kernel.functions.IncidentRemediation,
    payloadResponseOnly: true,
    payload: taskPayload<TaskInputOf<typeof IncidentRemediation>>({
      conversationId: sfn.JsonPath.stringAt(INCIDENT_STATE.at('conversationId')),
      index: sfn.JsonPath.numberAt(STEP.at('index')),
    }),
    resultPath: INCIDENT_STATE.at('stepRun'),
    // Twice the function's own timeout: a skill that runs to the limit fails as a Lambda error first.
    taskTimeout: sfn.Timeout.duration(Duration.seconds(2 * REMEDIATION_TIMEOUT_SECONDS)),
    retryOnServiceExceptions: false,
  });
  // Only the Lambda service's own hiccups: a retried run finds its step marked running and
  // records it as interrupted instead of calling the skill twice.
  addTransientRetry(run, LAMBDA_TRANSIENT_ERRORS);
  // A run that failed after its retries is recorded (the plan `failed`, with the reason) and
  // shown in the thread: the plan is never left `running` without a word.
  const stepError = recordsTask(scope, S.stepError, {
    fn: records,
    op: 'fail_step',
    payload: {
      index: sfn.JsonPath.numberAt(STEP.at('index')),
      error: sfn.JsonPath.stringAt(FAILURE.at('Error')),
      cause: sfn.JsonPath.stringAt(FAILURE.at('Cause')),
    },
  });
  catchFailure(stepError, props.failed);
  run.addCatch(stepError, { errors: [sfn.Errors.ALL], resultPath: FAILURE.path });
  stepError.next(
    showPhase(scope, `${S.showStep} failed`, { fn: progress, phase: 'remediation', next: props.finish }),
  );
  run.next(showStep);

  const decision = recordsTask(scope, S.recordDecision, {
    fn: records,
    op: 'decide_step',
    payload: {
      index: sfn.JsonPath.numberAt(STEP.at('index')),
      outcome: sfn.JsonPath.stringAt(STEP_APPROVAL.at('outcome')),
    },
    resultPath: STEP_DECISION.path,
  });
  catchFailure(decision, props.failed);
  const showStopped = showPhase(scope, `${S.showStep} stopped`, {
    fn: progress,
    phase: 'remediation',
    next: props.finish,
  });
  decision.next(
    sfn.Choice.jsonPath(scope, S.approved)
      .when(sfn.Condition.stringEquals(STEP_DECISION.at('decision'), 'approve'), run)
      .otherwise(showStopped),
  );
  const approval = stepApproval(scope, kernel, { result: STEP_APPROVAL, onFailure: props.failed });
  approval.next(decision);

  next.next(
    sfn.Choice.jsonPath(scope, S.stepLeft)
      .when(
        sfn.Condition.booleanEquals(STEP.at('done'), true),
        showPhase(scope, `${S.showStep} done`, { fn: progress, phase: 'remediation', next: props.finish }),
      )
      .when(sfn.Condition.booleanEquals(STEP.at('approval'), true), approval)
      .otherwise(run),
  );
  return next;
}
