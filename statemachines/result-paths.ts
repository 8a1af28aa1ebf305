import * as sfn from 'aws-cdk-lib/aws-stepfunctions';

/**
 * Typed JSONPaths into the execution's state and a task's result: a state machine declares the
 * type of its state (`stateOf<S>()`), where a task puts its result is a `ResultSlot` of the
 * result's type, and a path names a field the type has, so a misspelt field or a field of
 * another result fails the type check instead of failing the execution.
 */

/** How deep `FieldPath` looks into nested fields (a result is small; the limit keeps tsc fast). */
type Deeper = [never, 0, 1, 2, 3, 4];

/** An array element in a JSONPath: every element, or one by its index. */
type Element = '[*]' | `[${number}]`;

/** The JSONPath suffixes into a `T`, each beginning with `.` or `[`. */
type SubPath<T, Depth extends number = 5> = [Depth] extends [never]
  ? never
  : T extends readonly (infer E)[]
    ? Element | `${Element}${SubPath<NonNullable<E>, Deeper[Depth]>}`
    : T extends object
      ? {
          [K in keyof T & string]-?: `.${K}` | `.${K}${SubPath<NonNullable<T[K]>, Deeper[Depth]>}`;
        }[keyof T & string]
      : never;

/**
 * A path to a field of `T` (of any member of a union), nested fields and array elements
 * included: `'turn'`, `'messages[0]'`, `'messages[*].messageType'`.
 */
export type FieldPath<T> = SubPath<T> extends `.${infer Path}` ? Path : never;

/** The typed JSONPaths into a value of type `T` in the state: the execution's state, or a result in it. */
export interface StatePaths<T> {
  /** The JSONPath of a field, e.g. `at('messages')` is `$.drained.messages`, `stateOf<S>().at('turn')` is `$.turn`. */
  at(field: FieldPath<T>): `$.${string}`;
  /** The field `field` as a slot of its own type, e.g. `slot('check').path` is `$.check`. */
  slot<K extends keyof T & string>(field: K): ResultSlot<NonNullable<T[K]>>;
}

/** Where a task puts a result of type `T` in the state, and the typed paths into it. */
export interface ResultSlot<T> extends StatePaths<T> {
  /** The task's `resultPath`, e.g. `$.drained`. */
  readonly path: `$.${string}`;
}

function pathsUnder<T>(root: '$' | `$.${string}`): StatePaths<T> {
  return { at: (field) => `${root}.${field}`, slot: (field) => resultSlot(`${root}.${field}`) };
}

/** A result of type `T` at `path` (a JSONPath of the state, e.g. `$.wake`). */
export function resultSlot<T>(path: `$.${string}`): ResultSlot<T> {
  return { path, ...pathsUnder<T>(path) };
}

/**
 * The paths into an execution's state of type `S` (its input and the slots its states add):
 * `stateOf<S>().at('conversationId')` is `$.conversationId`, and a field `S` lacks fails tsc.
 */
export function stateOf<S>(): StatePaths<S> {
  return pathsUnder<S>('$');
}

/** The fields of a result type; none of an unknown one (`never` has every key). */
type FieldOf<R> = [R] extends [never] ? never : keyof R & string;

/**
 * A `resultSelector` that keeps the listed fields of the Lambda's payload (`R`, the handler's
 * result) and drops the invoke's envelope (StatusCode, headers): a field `R` lacks fails tsc.
 */
export function payloadSelector<R>(fields: readonly FieldOf<R>[]): Record<string, string> {
  return Object.fromEntries(fields.map((field) => [field, sfn.JsonPath.stringAt(`$.Payload.${field}`)]));
}
