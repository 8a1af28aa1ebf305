import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { handler as IncidentProgress } from '../../lambdas/workflows/incident-investigation/handlers/progress.ts';
import type { IncidentRecordsInput } from '../../lambdas/workflows/incident-investigation/handlers/records.ts';
import type { Phase } from '../../lambdas/workflows/incident-investigation/record.ts';
import { addTransientRetry, KERNEL_TASK_TIMEOUT, LAMBDA_TRANSIENT_ERRORS } from '../kernel.ts';
import { KERNEL_STATE } from '../kernel-state.ts';
import {
  type DistributiveOmit,
  type PayloadTemplate,
  type TaskInputOf,
  taskPayload,
} from '../task-payload.ts';
import { INCIDENT_STATE } from './incident-state.ts';

/**
 * The incident workflow's own tasks: its record keeping (IncidentRecords, one `op` per call)
 * and its phase messages (IncidentProgress). Each has the kernel's timeout and transient
 * Retry; the caller adds the Catch.
 */

/** An IncidentRecords `op` and what it takes besides the op and the conversation id (which the task adds). */
type RecordsPayload<Op extends RecordsOp> = PayloadTemplate<
  DistributiveOmit<Extract<IncidentRecordsInput, { op: Op }>, 'op' | 'conversationId'>
>;
type RecordsOp = IncidentRecordsInput['op'];

/** One IncidentRecords call as data: an op with its own payload. */
export type RecordsCall = { [Op in RecordsOp]: { op: Op; payload: RecordsPayload<Op> } }[RecordsOp];

/**
 * A call of IncidentRecords (`IncidentRecordsInput`, one `op` per call): its answer (small) at
 * `resultPath`. The payload is checked against the op's own fields: a wrong field fails tsc.
 */
export function recordsTask<Op extends RecordsOp>(
  scope: Construct,
  stateName: string,
  props: {
    fn: IFunction;
    op: Op;
    /** @default - discarded */
    resultPath?: string;
  } & (Record<never, never> extends RecordsPayload<NoInfer<Op>>
    ? { payload?: RecordsPayload<NoInfer<Op>> }
    : { payload: RecordsPayload<NoInfer<Op>> }),
): tasks.LambdaInvoke {
  const task = tasks.LambdaInvoke.jsonPath(scope, stateName, {
    stateName,
    lambdaFunction: props.fn,
    payloadResponseOnly: true,
    // The op's own fields were checked by `props`' type; a spread of a generic op's payload is
    // beyond what tsc can narrow, so the whole is handed over as the union it belongs to.
    payload: taskPayload<IncidentRecordsInput>({
      op: props.op,
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      ...(props.payload as object | undefined),
    } as PayloadTemplate<IncidentRecordsInput>),
    resultPath: props.resultPath ?? sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  return task;
}

/**
 * Shows a phase in the thread (posts it, or updates it in place). Cosmetic: its failure after
 * the retries is caught into `next`, so a Slack outage never stops the investigation.
 */
export function showPhase(
  scope: Construct,
  stateName: string,
  props: { fn: IFunction; phase: Phase; next: sfn.IChainable },
): tasks.LambdaInvoke {
  const task = tasks.LambdaInvoke.jsonPath(scope, stateName, {
    stateName,
    lambdaFunction: props.fn,
    payloadResponseOnly: true,
    payload: taskPayload<TaskInputOf<typeof IncidentProgress>>({
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      phase: props.phase,
    }),
    resultPath: sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  task.addCatch(props.next, { errors: [sfn.Errors.ALL], resultPath: INCIDENT_STATE.at('progressError') });
  task.next(props.next);
  return task;
}
