/**
 * Errors of the sandbox's Step Functions. Two families:
 *
 * - `StepFunctionsApiError`: what an API call answers (HTTP 400 with `__type` = the code), so the
 *   real `@aws-sdk/client-sfn` raises its own exception class (`err instanceof TaskTimedOut`).
 * - `TaskFailure`: what a Task state fails with inside an execution. Its `name` is the Step Functions
 *   error name that `Retry`/`Catch` match (`States.Timeout`, a Lambda's error type, ...), its
 *   `message` the cause.
 */

/** API error codes, by the shape name the SDK maps to an exception class. */
export const API_ERROR_CODES = [
  'ExecutionAlreadyExists',
  'ExecutionDoesNotExist',
  'InvalidArn',
  'InvalidDefinition',
  'InvalidExecutionInput',
  'InvalidName',
  'InvalidOutput',
  'InvalidToken',
  'ResourceNotFound',
  'StateMachineAlreadyExists',
  'StateMachineDoesNotExist',
  'TaskTimedOut',
  'UnknownOperationException',
  'ValidationException',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export class StepFunctionsApiError extends Error {
  override readonly name: ApiErrorCode;

  constructor(code: ApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = code;
  }
}

export const executionDoesNotExist = (arn: string): StepFunctionsApiError =>
  new StepFunctionsApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);

export const stateMachineDoesNotExist = (arn: string): StepFunctionsApiError =>
  new StepFunctionsApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);

export const invalidToken = (): StepFunctionsApiError =>
  new StepFunctionsApiError('InvalidToken', 'Invalid Token: the task token was never issued');

export const taskTimedOut = (): StepFunctionsApiError =>
  new StepFunctionsApiError('TaskTimedOut', "Task Timed Out: 'Provided task does not exist anymore'");

export const invalidDefinition = (message: string): StepFunctionsApiError =>
  new StepFunctionsApiError('InvalidDefinition', `Invalid State Machine Definition: ${message}`);

/** A Task state's failure, as Step Functions names it (the `Error` a Catch sees) with its `Cause`. */
export class TaskFailure extends Error {
  constructor(error: string, cause: string) {
    super(cause);
    this.name = error;
  }
}

/**
 * Thrown into a Task of an execution that has already ended (stopped, or ended while a Parallel
 * sibling still ran). aws-local-stepfunctions reads `isRetryable`/`isCatchable` off the error, so
 * the dying execution neither retries the Task (which would invoke a Lambda again) nor catches it.
 */
export class ExecutionEndedError extends Error {
  readonly isRetryable = false;
  readonly isCatchable = false;

  constructor(executionArn: string) {
    super(`The execution has ended: ${executionArn}`);
    this.name = 'ExecutionEnded';
  }
}

/**
 * `States.Runtime`: a malformed value at run time (e.g. a SecondsPath that is not an integer).
 * As in Step Functions, neither Retry nor Catch (not even `States.ALL`) handles it.
 */
export class StatesRuntimeError extends TaskFailure {
  readonly isRetryable = false;
  readonly isCatchable = false;

  constructor(cause: string) {
    super('States.Runtime', cause);
  }
}

/**
 * `States.DataLimitExceeded`: a state's input (after Parameters), result or output larger than
 * Step Functions' 256 KiB payload quota. As in Step Functions, neither Retry nor Catch (not
 * even `States.ALL`) handles it: the execution fails.
 */
export class DataLimitExceededError extends TaskFailure {
  readonly isRetryable = false;
  readonly isCatchable = false;

  constructor(cause: string) {
    super('States.DataLimitExceeded', cause);
  }
}
