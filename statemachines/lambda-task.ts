import type { IResolvable } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type * as z from 'zod';
import { addTransientRetry, KERNEL_TASK_TIMEOUT, LAMBDA_TRANSIENT_ERRORS } from './kernel.ts';

/**
 * A value Step Functions fills in when the task runs: a JSONPath (`sfn.JsonPath.stringAt`,
 * `numberAt`, `listAt`, `objectAt`) or an intrinsic function (`sfn.JsonPath.format`).
 */
export type JsonPathValue = string | number | readonly string[] | IResolvable;

/**
 * A task payload template for a Lambda whose input is `T`: each field of `T` (its optional ones
 * may be left out), as a value of its type, a JSONPath, or (an object) a template of its own
 * fields. A field `T` does not have, or a required one left out, fails the type check.
 */
export type PayloadTemplate<T> = T extends readonly unknown[]
  ? T | JsonPathValue
  : T extends object
    ? [keyof T] extends [never]
      ? // `{}` would take any object: an input without fields takes none.
        { readonly [field: string]: never }
      : { [K in keyof T]: PayloadTemplate<T[K]> | JsonPathValue }
    : T | JsonPathValue;

/** `Omit` over each member of a union (a discriminated input keeps its members apart). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * The input a task handler validates, inferred from the schema it carries (`taskHandler` in
 * lambdas/handlers/task-handler.ts): `TaskInputOf<typeof import('...').handler>`.
 */
export type TaskInputOf<H> = H extends { readonly inputSchema: infer S extends z.ZodType }
  ? z.input<S>
  : never;

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
    payload: sfn.TaskInput.fromObject(payload as Record<string, unknown>),
    payloadResponseOnly: true,
    resultPath,
    taskTimeout: sfn.Timeout.duration(KERNEL_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  return task;
}
