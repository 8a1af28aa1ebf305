import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  type StateMachine,
} from 'aws-local-stepfunctions';
import type { StepFunctionsClock } from './clock.ts';
import type { CodeBuildPort } from './codebuild-integration.ts';
import type { PreparedDefinition } from './definition.ts';
import { StepFunctionsApiError } from './errors.ts';
import { causeText, type HistoryEvent } from './history.ts';
import type { ResumePoint } from './persisted-executions.ts';
import { MAX_PAYLOAD_BYTES } from './task-run.ts';

/**
 * The records the sandbox's Step Functions keeps (state machines, executions) and the shapes
 * its API reports, with the small rules they follow (names, ARNs, payload sizes, outcomes).
 */

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface LocalStepFunctionsOptions {
  /**
   * Multiplies every duration the definition states: Wait durations, Task `TimeoutSeconds` and
   * `HeartbeatSeconds`, Retry intervals and the execution's `TimeoutSeconds` (e.g. 0.001 turns a
   * 2-hour wait into 7.2 s).
   */
  readonly timeScale: number;
  /** Runs a Lambda handler in process; a thrown error's `name` is the Lambda error type. */
  readonly invokeLambda: (functionArn: string, payload: unknown) => Promise<unknown>;
  /** For the direct DynamoDB integrations (`arn:aws:states:::dynamodb:*`). */
  readonly dynamodb?: DynamoDBClient;
  /** For the CodeBuild integrations (`arn:aws:states:::codebuild:startBuild[.sync]`). */
  readonly codebuild?: CodeBuildPort;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /**
   * The clock of the waits the runtime runs itself; a `ManualClock` fires them only when advanced
   * (clock.ts). Its `now` is the runtime's unless `now` is given. @default real time
   */
  readonly clock?: StepFunctionsClock;
  /** Sees every history event as it is recorded (e.g. to log executions in the sandbox). */
  readonly onEvent?: (executionName: string, event: HistoryEvent) => void;
}

export interface StateMachineRegistration {
  readonly arn: string;
  readonly name: string;
  /** The ASL definition, as an object or as the JSON string of a template's DefinitionString. */
  readonly definition: unknown;
  /** @default 'arn:aws:iam::000000000000:role/sandbox-state-machine' */
  readonly roleArn?: string;
}

export interface StateMachineDescription {
  readonly stateMachineArn: string;
  readonly name: string;
  readonly definition: string;
  readonly roleArn: string;
  readonly type: 'STANDARD';
  readonly status: 'ACTIVE';
  readonly creationDate: Date;
}

export interface ExecutionDescription {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  /** The version it runs, when it started through a version or an alias. */
  readonly stateMachineVersionArn?: string;
  /** The alias it started through, if any. */
  readonly stateMachineAliasArn?: string;
  readonly name: string;
  readonly status: ExecutionStatus;
  readonly startDate: Date;
  readonly stopDate?: Date;
  readonly input: string;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
}

export type ExecutionSummary = Omit<ExecutionDescription, 'input' | 'output' | 'error' | 'cause'>;

export interface StartExecutionRequest {
  readonly stateMachineArn: string;
  /** @default a random UUID */
  readonly name?: string;
  /** The input as a JSON string. @default '{}' */
  readonly input?: string;
}

export interface RegisteredMachine {
  readonly description: StateMachineDescription;
  readonly prepared: PreparedDefinition;
  readonly runner: StateMachine;
}

export interface Execution {
  readonly machine: RegisteredMachine;
  /** The version and alias it started through (a qualified ARN). */
  readonly versionArn?: string;
  readonly aliasArn?: string;
  readonly executionArn: string;
  readonly name: string;
  readonly input: string;
  readonly startDate: Date;
  status: ExecutionStatus;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  /** The error/cause StopExecution gave, for the history's ExecutionAborted event. */
  stopReason: { error?: string; cause?: string };
  readonly history: HistoryEvent[];
  /** Everything that must be released when the execution ends: running tasks, sleeps. */
  readonly inFlight: Set<{ cancel(executionArn: string): void }>;
  /** Set once the execution's outcome is decided: no Task may start after that. */
  ended: boolean;
  abort: () => void;
  done: Promise<void>;
  /**
   * A restored execution, until it runs on: the state it stood in (persisted-executions.ts).
   * Its Task or Wait takes it, once; its run's first ExecutionStarted and StateEntered are not
   * recorded again.
   */
  resume?: ResumePoint | undefined;
  /** The events of a resumed run not to record again (the saved history has them). */
  replayed?: Set<'ExecutionStarted' | 'StateEntered'>;
}

export const STATE_MACHINE_ARN = /^arn:[^:]+:states:[^:]*:[^:]*:stateMachine:[^:]+$/;
export const EXECUTION_ARN = /^arn:[^:]+:states:[^:]*:[^:]*:execution:[^:]+:[^:]+$/;
/** An execution name can be reused 90 days after its execution closed. */
export const NAME_REUSE_MS = 90 * 24 * 60 * 60 * 1000;
export const DEFAULT_ROLE_ARN = 'arn:aws:iam::000000000000:role/sandbox-state-machine';

export interface Outcome {
  status: Exclude<ExecutionStatus, 'RUNNING'>;
  output?: string;
  error?: string;
  cause?: string;
}

export function outcomeOf(error: unknown): Outcome {
  if (error instanceof ExecutionAbortedError) return { status: 'ABORTED' };
  if (error instanceof ExecutionTimeoutError) {
    return { status: 'TIMED_OUT', error: 'States.Timeout', cause: 'Execution timed out' };
  }
  if (error instanceof ExecutionError && error.cause instanceof Error) {
    const failure = error.cause;
    return { status: 'FAILED', error: failure.name, cause: causeText(failure.cause ?? failure.message) };
  }
  return { status: 'FAILED', error: 'States.Runtime', cause: causeText(error) };
}

/** What DescribeExecution reports of an execution. */
export function describe(execution: Execution): ExecutionDescription {
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.machine.description.stateMachineArn,
    ...(execution.versionArn !== undefined && { stateMachineVersionArn: execution.versionArn }),
    ...(execution.aliasArn !== undefined && { stateMachineAliasArn: execution.aliasArn }),
    name: execution.name,
    status: execution.status,
    startDate: execution.startDate,
    input: execution.input,
    ...(execution.stopDate !== undefined && { stopDate: execution.stopDate }),
    ...(execution.output !== undefined && { output: execution.output }),
    ...(execution.error !== undefined && { error: execution.error }),
    ...(execution.cause !== undefined && { cause: execution.cause }),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mintToken(): string {
  return `AQ${randomBytes(96).toString('base64url')}`;
}

export function parseJson(
  text: string,
  code: 'InvalidExecutionInput' | 'InvalidOutput',
  what: string,
): unknown {
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    throw new StepFunctionsApiError(code, `${what}: larger than ${MAX_PAYLOAD_BYTES} bytes`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StepFunctionsApiError(
      code,
      `${what}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function invalidArn(arn: string): StepFunctionsApiError {
  return new StepFunctionsApiError('InvalidArn', `Invalid Arn: '${arn}'`);
}

/** Step Functions names: 1-80 characters, no whitespace, brackets, wildcards, specials or controls. */
export function isValidName(name: string): boolean {
  if (name.length < 1 || name.length > 80) return false;
  for (const char of name) {
    const code = char.codePointAt(0) ?? 0;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return false;
    if (/\s/.test(char) || '<>{}[]?*"#%\\^|~`$&,;:/'.includes(char)) return false;
  }
  return true;
}
