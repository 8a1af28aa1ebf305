import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { addTransientRetry, KERNEL_TASK_TIMEOUT, LAMBDA_TRANSIENT_ERRORS } from './kernel.ts';
import { type PayloadTemplate, taskPayload } from './task-payload.ts';

export type { TaskInputOf } from './task-payload.ts';

/**
 * A workflow's own task Lambda (a check, a hand-off, a results reader): the payload response
 * only, the kernel's Retry for transient errors, and the kernel's task timeout. Add its Catch.
 * `I` is the function's input (`TaskInputOf<typeof handler>`): the payload is checked against it.
 */
export function lambdaTask<I = never>(
  scope: Construct,
  stateName: string,
  fn: IFunction,
  payload: NoInfer<PayloadTemplate<I>>,
  resultPath: string,
): tasks.LambdaInvoke {
  const task = tasks.LambdaInvoke.jsonPath(scope, stateName, {
    stateName,
    lambdaFunction: fn,
    payload: taskPayload<I>(payload),
    payloadResponseOnly: true,
    resultPath,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  return task;
}
