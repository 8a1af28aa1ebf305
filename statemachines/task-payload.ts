import type { IResolvable } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as z from 'zod';

/**
 * The types that tie a task's input to the input its Lambda parses: a payload is written as a
 * template of the handler's input type, so a wrong or missing field fails `tsc`.
 */

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

/** The result a task handler returns: `TaskResultOf<typeof import('...').handler>`. */
export type TaskResultOf<H> = H extends (...args: never[]) => Promise<infer R> ? R : never;

/**
 * A task's input (`Payload` of a Lambda task, `Input` of an execution it starts), checked
 * against `I`, the input its handler parses (`TaskInputOf<typeof handler>`, or the schema's type).
 * Without `I` nothing is accepted: every task names the input it is built for.
 */
export function taskPayload<I = never>(payload: NoInfer<PayloadTemplate<I>>): sfn.TaskInput {
  return sfn.TaskInput.fromObject(payload as Record<string, unknown>);
}
