import { randomUUID } from 'node:crypto';
import { StateMachine } from 'aws-local-stepfunctions';
import { noteActivity } from '../activity.ts';
import { realClock, type StepFunctionsClock, withoutLibraryTaskTimeouts } from './clock.ts';
import { enforceStateOutputLimit } from './data-limits.ts';
import { executionDoesNotExist, invalidToken, StepFunctionsApiError, taskTimedOut } from './errors.ts';
import {
  describe,
  EXECUTION_ARN,
  type Execution,
  type ExecutionDescription,
  type ExecutionStatus,
  type ExecutionSummary,
  invalidArn,
  isValidName,
  type LocalStepFunctionsOptions,
  NAME_REUSE_MS,
  type Outcome,
  outcomeOf,
  parseJson,
  type RegisteredMachine,
  type StartExecutionRequest,
  type StateMachineDescription,
  type StateMachineRegistration,
} from './execution.ts';
import { fromLibraryEvent, type HistoryEvent } from './history.ts';
import { StateMachineRegistry } from './machine-registry.ts';
import { type ExecutionSnapshot, restoreExecutions, snapshotOf } from './persisted-executions.ts';
import type { TaskRun } from './task-run.ts';
import { TaskRunner } from './task-runner.ts';

export type {
  ExecutionDescription,
  ExecutionStatus,
  ExecutionSummary,
  LocalStepFunctionsOptions,
  StartExecutionRequest,
  StateMachineDescription,
  StateMachineRegistration,
};

/**
 * The sandbox's Step Functions: runs registered state machine definitions (kept with their
 * versions and aliases by machine-registry.ts) with aws-local-stepfunctions, concurrently, and
 * keeps what the Step Functions API reports about them (status, input/output, event history).
 * Task states (task-runner.ts) call in-process Lambda handlers, the sandbox's DynamoDB, or start
 * child executions; callback tasks get a fresh token per wait.
 */
export class LocalStepFunctions {
  private readonly registry: StateMachineRegistry;
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
  private readonly tasks: TaskRunner;
  /** The clock of the waits the runtime runs itself (a `ManualClock` is advanced by tests). */
  readonly clock: StepFunctionsClock;

  constructor(private readonly options: LocalStepFunctionsOptions) {
    if (!(options.timeScale > 0)) throw new RangeError(`timeScale must be > 0, got ${options.timeScale}`);
    enforceStateOutputLimit();
    this.clock = options.clock ?? realClock;
    this.now = options.now ?? (() => this.clock.now());
    this.registry = new StateMachineRegistry({
      timeScale: options.timeScale,
      hasDynamoDb: options.dynamodb !== undefined,
      hasCodeBuild: options.codebuild !== undefined,
      now: this.now,
      runnerOf: (prepared) => this.runnerOf(prepared),
    });
    this.tasks = new TaskRunner({
      options,
      now: this.now,
      tokens: this.tokens,
      placeholders: {
        token: this.tokenPlaceholder,
        enteredTime: this.statePlaceholders.EnteredTime,
        name: this.statePlaceholders.Name,
      },
      record: (execution, event) => this.record(execution, event),
      startExecution: (request) => this.startExecution(request),
    });
  }

  registerStateMachine(registration: StateMachineRegistration): StateMachineDescription {
    return this.registry.register(registration);
  }

  listStateMachines(): StateMachineDescription[] {
    return this.registry.list();
  }

  describeStateMachine(arn: string): StateMachineDescription {
    return this.registry.get(arn).description;
  }

  /** Publishes a version of a registered state machine (its definition as registered); returns its ARN. */
  publishVersion(stateMachineArn: string): string {
    return this.registry.publishVersion(stateMachineArn);
  }

  /** Points the alias `name` at a published version; returns the alias's ARN. */
  setAlias(name: string, versionArn: string): string {
    return this.registry.setAlias(name, versionArn);
  }

  /** Starts an execution of a state machine, or of a version or alias of one (a qualified ARN). */
  startExecution(request: StartExecutionRequest): { executionArn: string; startDate: Date } {
    const target = this.registry.resolve(request.stateMachineArn);
    const { machine } = target;
    const name = request.name ?? randomUUID();
    if (!isValidName(name)) {
      throw new StepFunctionsApiError('InvalidName', `Invalid Name: '${name}'`);
    }
    const input = request.input ?? '{}';
    const inputValue = parseJson(input, 'InvalidExecutionInput', 'Invalid State Machine Execution Input');
    // Named under the state machine, whichever version or alias it started through.
    const executionArn = `${target.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
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
      ...(target.versionArn !== undefined && { versionArn: target.versionArn }),
      ...(target.aliasArn !== undefined && { aliasArn: target.aliasArn }),
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
    this.launch(execution, machine.runner, inputValue);
    return { executionArn, startDate: execution.startDate };
  }

  /** The executions, as a sandbox that keeps its state saves them. */
  snapshot(): ExecutionSnapshot[] {
    return [...this.executions.values()].map((execution) => snapshotOf(execution, this.tokens));
  }

  /** Takes back saved executions (persisted-executions.ts `restoreExecutions`). */
  restore(snapshots: readonly ExecutionSnapshot[]): void {
    restoreExecutions(snapshots, {
      timeScale: this.options.timeScale,
      machine: (arn) => this.registry.find(arn),
      add: (execution) => this.executions.set(execution.executionArn, execution),
      now: this.now,
      record: (execution, event) => this.record(execution, event),
      launch: (execution, startAt, input) =>
        this.launch(execution, this.runnerOf(execution.machine.prepared, startAt), input),
    });
  }

  private launch(execution: Execution, runner: StateMachine, input: unknown): void {
    const { machine, executionArn, name } = execution;
    const run = runner.run(input as Parameters<StateMachine['run']>[0], {
      overrides: this.tasks.overridesFor(execution),
      context: {
        Execution: { Id: executionArn, Name: name, RoleArn: machine.description.roleArn },
        StateMachine: { Id: machine.description.stateMachineArn, Name: machine.description.name },
        Task: { Token: this.tokenPlaceholder },
        State: this.statePlaceholders,
      },
    });
    execution.abort = run.abort;
    execution.done = this.track(execution, run);
  }

  /** What aws-local-stepfunctions runs for a definition, from its start or from `startAt`. */
  private runnerOf(prepared: RegisteredMachine['prepared'], startAt?: string): StateMachine {
    // Not validated: the copy's scaled durations would fail (prepareDefinition validated the
    // original). Under a manual clock the library's Task timers are disarmed (the clock times out).
    const runnable = this.clock.manual ? withoutLibraryTaskTimeouts(prepared.runnable) : prepared.runnable;
    const definition = startAt === undefined ? runnable : { ...(runnable as object), StartAt: startAt };
    return new StateMachine(definition as typeof prepared.runnable, {
      validationOptions: { noValidate: true },
    });
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
    return describe(this.execution(executionArn));
  }

  getExecutionHistory(executionArn: string): readonly HistoryEvent[] {
    return [...this.execution(executionArn).history];
  }

  /** Executions, newest first. */
  listExecutions(
    filter: { stateMachineArn?: string; statusFilter?: ExecutionStatus } = {},
  ): ExecutionSummary[] {
    if (filter.stateMachineArn !== undefined) this.registry.get(filter.stateMachineArn);
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
        const { input: _i, output: _o, error: _e, cause: _c, ...summary } = describe(execution);
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

  /** Whether some execution is still running. */
  running(): boolean {
    for (const execution of this.executions.values()) if (execution.status === 'RUNNING') return true;
    return false;
  }

  /**
   * Forgets every execution and task token, and sets a manual clock back to real time, keeping
   * the registered state machines: for a sandbox that serves its next user. `close()` first.
   */
  reset(): void {
    if (this.running()) throw new Error('reset() needs every execution stopped: close() first');
    this.executions.clear();
    this.tokens.clear();
    this.clock.reset?.();
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

  private record(execution: Execution, event: Omit<HistoryEvent, 'timestamp'>): void {
    this.push(execution, { timestamp: this.now(), ...event });
  }

  private push(execution: Execution, event: HistoryEvent): void {
    execution.history.push(event);
    noteActivity();
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
        // A resumed run's start and first state are in the saved history already.
        if (execution.replayed?.delete(event.type as 'StateEntered')) continue;
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
