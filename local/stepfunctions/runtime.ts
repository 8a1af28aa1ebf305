import { randomBytes, randomUUID } from 'node:crypto';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  type RunOptions,
  StateMachine,
} from 'aws-local-stepfunctions';
import { type PreparedDefinition, prepareDefinition, type TaskSpec, taskTimeoutScale } from './definition.ts';
import {
  ExecutionEndedError,
  executionDoesNotExist,
  invalidToken,
  StatesRuntimeError,
  StepFunctionsApiError,
  stateMachineDoesNotExist,
  taskTimedOut,
} from './errors.ts';
import { causeText, fromLibraryEvent, type HistoryEvent } from './history.ts';
import {
  callDynamoDb,
  dynamoDbFailure,
  type FailureInfo,
  lambdaFailure,
  lambdaInvokeResult,
  replacePlaceholders,
  toJson,
} from './integrations.ts';
import { MAX_PAYLOAD_BYTES, TaskRun } from './task-run.ts';
import { MAX_TIMER_MS, scaledMs, scaledTimeoutMs, startTimer } from './time.ts';

/**
 * The sandbox's Step Functions: runs registered state machine definitions with
 * aws-local-stepfunctions, concurrently, and keeps what the Step Functions API reports about
 * them (status, input/output, event history). Task states call in-process Lambda handlers, the
 * sandbox's DynamoDB, or start child executions; callback tasks get a fresh token per wait.
 */

type Overrides = NonNullable<RunOptions['overrides']>;
type TaskHandlers = NonNullable<Overrides['taskResourceLocalHandlers']>;
type JsonValue = Parameters<TaskHandlers[string]>[0];

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
  /** @default () => new Date() */
  readonly now?: () => Date;
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

interface RegisteredMachine {
  readonly description: StateMachineDescription;
  readonly prepared: PreparedDefinition;
  readonly runner: StateMachine;
}

interface Execution {
  readonly machine: RegisteredMachine;
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
}

const STATE_MACHINE_ARN = /^arn:[^:]+:states:[^:]*:[^:]*:stateMachine:[^:]+$/;
const EXECUTION_ARN = /^arn:[^:]+:states:[^:]*:[^:]*:execution:[^:]+:[^:]+$/;
/** An execution name can be reused 90 days after its execution closed. */
const NAME_REUSE_MS = 90 * 24 * 60 * 60 * 1000;
const DEFAULT_ROLE_ARN = 'arn:aws:iam::000000000000:role/sandbox-state-machine';

export class LocalStepFunctions {
  private readonly machines = new Map<string, RegisteredMachine>();
  private readonly executions = new Map<string, Execution>();
  /** Every task token ever minted, with the task run it belongs to (settled runs stay: TaskTimedOut). */
  private readonly tokens = new Map<string, TaskRun>();
  /**
   * aws-local-stepfunctions evaluates `$$` against one static context object, so `$$.Task.Token`
   * resolves to this placeholder, which each callback task replaces with a freshly minted token.
   */
  private readonly tokenPlaceholder = `sandbox-task-token-placeholder-${randomUUID()}`;
  /**
   * `$$.State.EnteredTime` and `$$.State.Name` resolve to these placeholders in the same static
   * context; each Task replaces them with its own state's values (definition.ts allows them in
   * Task Parameters only, the one place the runtime sees before the integration runs).
   */
  private readonly statePlaceholders = {
    EnteredTime: `sandbox-state-entered-time-placeholder-${randomUUID()}`,
    Name: `sandbox-state-name-placeholder-${randomUUID()}`,
  } as const;
  private readonly now: () => Date;

  constructor(private readonly options: LocalStepFunctionsOptions) {
    if (!(options.timeScale > 0)) throw new RangeError(`timeScale must be > 0, got ${options.timeScale}`);
    this.now = options.now ?? (() => new Date());
  }

  registerStateMachine(registration: StateMachineRegistration): StateMachineDescription {
    const { arn, name } = registration;
    if (!STATE_MACHINE_ARN.test(arn)) throw invalidArn(arn);
    const prepared = prepareDefinition(registration.definition, {
      timeScale: this.options.timeScale,
      hasDynamoDb: this.options.dynamodb !== undefined,
    });
    const existing = this.machines.get(arn);
    if (existing) {
      // As CreateStateMachine: idempotent for the same definition, a conflict otherwise.
      if (existing.prepared.source === prepared.source) return existing.description;
      throw new StepFunctionsApiError('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`);
    }
    const description: StateMachineDescription = {
      stateMachineArn: arn,
      name,
      definition: prepared.source,
      roleArn: registration.roleArn ?? DEFAULT_ROLE_ARN,
      type: 'STANDARD',
      status: 'ACTIVE',
      creationDate: this.now(),
    };
    // The copy holds scaled, fractional durations the validator would reject; the definition
    // as written was validated by prepareDefinition.
    const runner = new StateMachine(prepared.runnable, { validationOptions: { noValidate: true } });
    this.machines.set(arn, { description, prepared, runner });
    return description;
  }

  listStateMachines(): StateMachineDescription[] {
    return [...this.machines.values()].map((machine) => machine.description);
  }

  describeStateMachine(arn: string): StateMachineDescription {
    return this.machine(arn).description;
  }

  startExecution(request: StartExecutionRequest): { executionArn: string; startDate: Date } {
    const machine = this.machine(request.stateMachineArn);
    const name = request.name ?? randomUUID();
    if (!isValidName(name)) {
      throw new StepFunctionsApiError('InvalidName', `Invalid Name: '${name}'`);
    }
    const input = request.input ?? '{}';
    const inputValue = parseJson(input, 'InvalidExecutionInput', 'Invalid State Machine Execution Input');
    const executionArn = `${request.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      // StartExecution is idempotent for STANDARD workflows: the same name and input while the
      // execution is still open answer with that execution; anything else is a conflict until
      // 90 days after it closed.
      if (existing.status === 'RUNNING' && existing.input === input) {
        return { executionArn, startDate: existing.startDate };
      }
      const reusable =
        existing.stopDate !== undefined &&
        this.now().getTime() - existing.stopDate.getTime() >= NAME_REUSE_MS;
      if (!reusable) {
        throw new StepFunctionsApiError(
          'ExecutionAlreadyExists',
          `Execution Already Exists: '${executionArn}'`,
        );
      }
    }
    const execution: Execution = {
      machine,
      executionArn,
      name,
      input,
      startDate: this.now(),
      status: 'RUNNING',
      stopReason: {},
      history: [],
      inFlight: new Set(),
      ended: false,
      abort: () => {},
      done: Promise.resolve(),
    };
    this.executions.set(executionArn, execution);
    const run = machine.runner.run(inputValue as JsonValue, {
      overrides: this.overridesFor(execution),
      context: {
        Execution: { Id: executionArn, Name: name, RoleArn: machine.description.roleArn },
        StateMachine: { Id: machine.description.stateMachineArn, Name: machine.description.name },
        Task: { Token: this.tokenPlaceholder },
        State: this.statePlaceholders,
      },
    });
    execution.abort = run.abort;
    execution.done = this.track(execution, run);
    return { executionArn, startDate: execution.startDate };
  }

  /** Completes the callback task the token belongs to with `output` (a JSON string). */
  sendTaskSuccess(taskToken: string, output: string): void {
    const run = this.pendingTask(taskToken);
    run.succeed(parseJson(output, 'InvalidOutput', 'Invalid Output'));
  }

  /** Fails the callback task the token belongs to; `error` is what its Retry/Catch match. */
  sendTaskFailure(taskToken: string, error = '', cause = ''): void {
    this.pendingTask(taskToken).fail(error, cause);
  }

  sendTaskHeartbeat(taskToken: string): void {
    this.pendingTask(taskToken).heartbeat();
  }

  stopExecution(executionArn: string, error?: string, cause?: string): { stopDate: Date } {
    const execution = this.execution(executionArn);
    if (execution.status !== 'RUNNING') return { stopDate: execution.stopDate ?? this.now() };
    const stopDate = this.now();
    execution.status = 'ABORTED';
    execution.stopDate = stopDate;
    execution.stopReason = {
      ...(error !== undefined && { error }),
      ...(cause !== undefined && { cause }),
    };
    Object.assign(execution, execution.stopReason);
    execution.abort();
    this.release(execution);
    return { stopDate };
  }

  describeExecution(executionArn: string): ExecutionDescription {
    const execution = this.execution(executionArn);
    return {
      executionArn: execution.executionArn,
      stateMachineArn: execution.machine.description.stateMachineArn,
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

  getExecutionHistory(executionArn: string): readonly HistoryEvent[] {
    return [...this.execution(executionArn).history];
  }

  /** Executions, newest first. */
  listExecutions(
    filter: { stateMachineArn?: string; statusFilter?: ExecutionStatus } = {},
  ): ExecutionSummary[] {
    if (filter.stateMachineArn !== undefined) this.machine(filter.stateMachineArn);
    return [...this.executions.values()]
      .filter((execution) => {
        const arn = execution.machine.description.stateMachineArn;
        return (
          (filter.stateMachineArn === undefined || arn === filter.stateMachineArn) &&
          (filter.statusFilter === undefined || execution.status === filter.statusFilter)
        );
      })
      .sort((a, b) => b.startDate.getTime() - a.startDate.getTime())
      .map((execution) => {
        const {
          input: _input,
          output: _output,
          error: _error,
          cause: _cause,
          ...summary
        } = this.describeExecution(execution.executionArn);
        return summary;
      });
  }

  /** Resolves once the execution has ended and its history is complete. */
  async waitForExecution(executionArn: string): Promise<ExecutionDescription> {
    await this.execution(executionArn).done;
    return this.describeExecution(executionArn);
  }

  /** Aborts every running execution and releases its timers. */
  async close(): Promise<void> {
    for (const execution of this.executions.values()) {
      if (execution.status === 'RUNNING') this.stopExecution(execution.executionArn);
    }
    await Promise.allSettled([...this.executions.values()].map((execution) => execution.done));
  }

  private machine(arn: string): RegisteredMachine {
    if (!STATE_MACHINE_ARN.test(arn)) throw invalidArn(arn);
    const machine = this.machines.get(arn);
    if (!machine) throw stateMachineDoesNotExist(arn);
    return machine;
  }

  private execution(arn: string): Execution {
    if (!EXECUTION_ARN.test(arn)) throw invalidArn(arn);
    const execution = this.executions.get(arn);
    if (!execution) throw executionDoesNotExist(arn);
    return execution;
  }

  private pendingTask(taskToken: string): TaskRun {
    const run = this.tokens.get(taskToken);
    if (!run) throw invalidToken();
    // A token whose task has ended (answered, failed, timed out, execution over) is "timed out".
    if (!run.pending) throw taskTimedOut();
    return run;
  }

  private overridesFor(execution: Execution): Overrides {
    const { prepared } = execution.machine;
    const { timeScale } = this.options;
    const taskResourceLocalHandlers: TaskHandlers = {};
    for (const spec of prepared.tasks.values()) {
      taskResourceLocalHandlers[spec.stateName] = (input) =>
        this.runTask(execution, spec, input) as Promise<JsonValue>;
    }
    const waitTimeOverrides: Record<string, number> = {};
    for (const [stateName, wait] of prepared.waits) {
      if (wait.kind === 'seconds') {
        waitTimeOverrides[stateName] = Math.min(MAX_TIMER_MS, scaledMs(wait.seconds, timeScale));
      } else {
        // The library reads the override when the state runs, so a getter measures the time
        // left until the Timestamp at that moment.
        Object.defineProperty(waitTimeOverrides, stateName, {
          enumerable: true,
          get: () => Math.min(MAX_TIMER_MS, this.msUntil(wait.timestamp) ?? 0),
        });
      }
    }
    return { taskResourceLocalHandlers, waitTimeOverrides };
  }

  /** Scaled milliseconds from now until an RFC 3339 timestamp (0 if past), undefined if unparsable. */
  private msUntil(timestamp: string): number | undefined {
    const at = Date.parse(timestamp);
    if (Number.isNaN(at)) return undefined;
    return scaledMs(Math.max(0, at - this.now().getTime()) / 1000, this.options.timeScale);
  }

  private async runTask(execution: Execution, spec: TaskSpec, input: unknown): Promise<unknown> {
    this.assertOpen(execution);
    // The library arms its own (later, see LIBRARY_TIMEOUT_MARGIN_MS) timeout right after
    // calling this handler: the runtime's deadline counts from here too, so it always comes first.
    const enteredAt = performance.now();
    // The library logs StateEntered synchronously right before calling this handler, but its
    // log is read asynchronously; one macrotask lets the history take it first, so this Task's
    // own events follow its StateEntered as in the real service.
    await nextMacrotask();
    this.assertOpen(execution);
    const { integration } = spec;
    if (integration.kind === 'wait-path') return this.runPathWait(execution, integration.field, input);

    const { timeScale } = this.options;
    const isCallback = integration.kind === 'lambda:invoke.waitForTaskToken';
    const token = isCallback ? mintToken() : undefined;
    const effectiveInput = replacePlaceholders(input, {
      ...(token !== undefined && { [this.tokenPlaceholder]: token }),
      [this.statePlaceholders.EnteredTime]: this.enteredTime(execution, spec.stateName).toISOString(),
      [this.statePlaceholders.Name]: spec.stateName,
    });
    const parameters = isRecord(effectiveInput) ? effectiveInput : {};
    const record = (event: Omit<HistoryEvent, 'timestamp'>) =>
      this.record(execution, {
        ...event,
        stateName: spec.stateName,
        stateType: 'Task',
        resource: spec.resource,
      });
    record({
      type: 'TaskScheduled',
      parameters: effectiveInput,
      ...(spec.timeoutSeconds !== undefined && { timeoutSeconds: spec.timeoutSeconds }),
      ...(spec.heartbeatSeconds !== undefined && { heartbeatSeconds: spec.heartbeatSeconds }),
    });
    const run: TaskRun = new TaskRun({
      record,
      onSettled: () => execution.inFlight.delete(run),
      ...(spec.timeoutSeconds !== undefined && {
        timeoutMs: Math.max(
          0,
          scaledTimeoutMs(spec.timeoutSeconds, taskTimeoutScale(integration, timeScale)) -
            (performance.now() - enteredAt),
        ),
      }),
      ...(isCallback &&
        spec.heartbeatSeconds !== undefined && {
          heartbeatMs: scaledTimeoutMs(spec.heartbeatSeconds, timeScale),
        }),
    });
    execution.inFlight.add(run);
    if (token !== undefined) this.tokens.set(token, run);
    record({ type: 'TaskStarted' });

    const settle = (work: () => Promise<unknown>, failure: (error: unknown) => FailureInfo) => {
      attempt(work).then(
        (output) => run.succeed(output),
        (error) => {
          const { error: name, cause } = failure(error);
          run.fail(name, cause);
        },
      );
    };
    const { invokeLambda } = this.options;
    switch (integration.kind) {
      case 'lambda:invoke':
        settle(
          async () =>
            lambdaInvokeResult(await invokeLambda(functionName(parameters), parameters.Payload ?? {})),
          lambdaFailure,
        );
        break;
      case 'lambda-function':
        settle(async () => toJson(await invokeLambda(spec.resource, effectiveInput)), lambdaFailure);
        break;
      case 'lambda:invoke.waitForTaskToken': {
        // The token is registered before the Lambda runs: it may answer the wait itself
        // (RegisterWait does when a message is already pending).
        attempt(() => invokeLambda(functionName(parameters), parameters.Payload ?? {})).then(
          (response) => {
            if (run.pending) record({ type: 'TaskSubmitted', output: lambdaInvokeResult(response) });
          },
          (error) => {
            const { error: name, cause } = lambdaFailure(error);
            run.fail(name, cause);
          },
        );
        break;
      }
      case 'dynamodb':
        settle(() => callDynamoDb(this.dynamodb(), integration.action, parameters), dynamoDbFailure);
        break;
      case 'states:startExecution':
        settle(async () => this.startChildExecution(parameters), startExecutionFailure);
        break;
    }
    return run.result;
  }

  /**
   * When the state was entered: the time of its latest StateEntered event, as in AWS, where a
   * retry stays in the state it entered once. The event is in the history by now (runTask waits
   * a macrotask for it); the current time stands in should the library ever log it later.
   */
  private enteredTime(execution: Execution, stateName: string): Date {
    const entered = execution.history.findLast(
      (event) => event.type === 'StateEntered' && event.stateName === stateName,
    );
    return entered?.timestamp ?? this.now();
  }

  /** A Wait on SecondsPath/TimestampPath, run as a Task: sleeps, then passes its input on. */
  private async runPathWait(
    execution: Execution,
    field: 'SecondsPath' | 'TimestampPath',
    input: unknown,
  ): Promise<unknown> {
    const { value, input: stateInput } = isRecord(input) ? input : {};
    let ms: number | undefined;
    if (field === 'SecondsPath') {
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
        ms = scaledMs(value, this.options.timeScale);
      }
    } else if (typeof value === 'string') {
      ms = this.msUntil(value);
    }
    if (ms === undefined) {
      throw new StatesRuntimeError(`The ${field} of the Wait state is not valid: ${JSON.stringify(value)}`);
    }
    await this.sleep(execution, ms);
    return stateInput ?? null;
  }

  private sleep(execution: Execution, ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const sleeper = {
        cancel: (executionArn: string) => {
          stop();
          reject(new ExecutionEndedError(executionArn));
        },
      };
      const stop = startTimer(ms, () => {
        execution.inFlight.delete(sleeper);
        resolve();
      });
      execution.inFlight.add(sleeper);
    });
  }

  private startChildExecution(parameters: Record<string, unknown>): unknown {
    const { StateMachineArn, Input, Name } = parameters;
    if (typeof StateMachineArn !== 'string') {
      throw new StepFunctionsApiError('ValidationException', 'StateMachineArn is required');
    }
    const input = Input === undefined ? '{}' : typeof Input === 'string' ? Input : JSON.stringify(Input);
    const started = this.startExecution({
      stateMachineArn: StateMachineArn,
      input,
      ...(typeof Name === 'string' && { name: Name }),
    });
    return { ExecutionArn: started.executionArn, StartDate: started.startDate.getTime() };
  }

  private dynamodb(): DynamoDBClient {
    // registerStateMachine refuses DynamoDB integrations when no client was given.
    if (!this.options.dynamodb) throw new StatesRuntimeError('No DynamoDB client is configured');
    return this.options.dynamodb;
  }

  private assertOpen(execution: Execution): void {
    if (execution.ended) throw new ExecutionEndedError(execution.executionArn);
  }

  private record(execution: Execution, event: Omit<HistoryEvent, 'timestamp'>): void {
    this.push(execution, { timestamp: this.now(), ...event });
  }

  private push(execution: Execution, event: HistoryEvent): void {
    execution.history.push(event);
    try {
      this.options.onEvent?.(execution.name, event);
    } catch {
      // An observer's failure must not break the execution it observes.
    }
  }

  /** Ends the execution's running tasks and sleeps; their tokens then answer TaskTimedOut. */
  private release(execution: Execution): void {
    execution.ended = true;
    for (const inFlight of [...execution.inFlight]) inFlight.cancel(execution.executionArn);
    execution.inFlight.clear();
  }

  private async track(execution: Execution, run: ReturnType<StateMachine['run']>): Promise<void> {
    const { stateTypes } = execution.machine.prepared;
    const history = (async () => {
      for await (const event of run.eventLogs) {
        this.push(execution, fromLibraryEvent(event, this.now(), stateTypes, execution.stopReason));
      }
    })();
    let outcome: Outcome;
    try {
      outcome = { status: 'SUCCEEDED', output: JSON.stringify(await run.result) };
    } catch (error) {
      outcome = outcomeOf(error);
    }
    this.release(execution);
    await history;
    if (execution.status !== 'RUNNING') return; // stopped meanwhile
    execution.status = outcome.status;
    execution.stopDate = this.now();
    if (outcome.output !== undefined) execution.output = outcome.output;
    if (outcome.error !== undefined) execution.error = outcome.error;
    if (outcome.cause !== undefined) execution.cause = outcome.cause;
  }
}

interface Outcome {
  status: Exclude<ExecutionStatus, 'RUNNING'>;
  output?: string;
  error?: string;
  cause?: string;
}

function outcomeOf(error: unknown): Outcome {
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

function startExecutionFailure(error: unknown): FailureInfo {
  if (error instanceof StepFunctionsApiError) {
    const code = error.name.endsWith('Exception') ? error.name : `${error.name}Exception`;
    return { error: `StepFunctions.${code}`, cause: error.message };
  }
  return { error: 'States.TaskFailed', cause: causeText(error) };
}

function functionName(parameters: Record<string, unknown>): string {
  const name = parameters.FunctionName;
  if (typeof name !== 'string') throw new StatesRuntimeError('lambda:invoke needs Parameters.FunctionName');
  return name;
}

/** Runs `work`, turning a synchronous throw into a rejection. */
function attempt<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mintToken(): string {
  return `AQ${randomBytes(96).toString('base64url')}`;
}

function parseJson(text: string, code: 'InvalidExecutionInput' | 'InvalidOutput', what: string): unknown {
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

function invalidArn(arn: string): StepFunctionsApiError {
  return new StepFunctionsApiError('InvalidArn', `Invalid Arn: '${arn}'`);
}

/** Step Functions names: 1-80 characters, no whitespace, brackets, wildcards, specials or controls. */
function isValidName(name: string): boolean {
  if (name.length < 1 || name.length > 80) return false;
  for (const char of name) {
    const code = char.codePointAt(0) ?? 0;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return false;
    if (/\s/.test(char) || '<>{}[]?*"#%\\^|~`$&,;:/'.includes(char)) return false;
  }
  return true;
}
