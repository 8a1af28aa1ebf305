import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunOptions } from 'aws-local-stepfunctions';
import { realClock, type StepFunctionsClock } from './clock.ts';
import { type CodeBuildPort, runStartBuild } from './codebuild-integration.ts';
import { assertWithinDataLimit } from './data-limits.ts';
import type { TaskSpec } from './definition.ts';
import { ExecutionEndedError, StatesRuntimeError, StepFunctionsApiError } from './errors.ts';
import {
  type Execution,
  isRecord,
  type LocalStepFunctionsOptions,
  mintToken,
  type StartExecutionRequest,
} from './execution.ts';
import { causeText, type HistoryEvent } from './history.ts';
import {
  callDynamoDb,
  dynamoDbFailure,
  type FailureInfo,
  lambdaFailure,
  lambdaInvokeResult,
  replacePlaceholders,
  toJson,
} from './integrations.ts';
import type { ResumePoint } from './persisted-executions.ts';
import { taskTimeoutScale } from './task-resources.ts';
import { TaskRun } from './task-run.ts';
import { MAX_TIMER_MS, scaledMs, scaledTimeoutMs } from './time.ts';

/**
 * Runs an execution's Task states for aws-local-stepfunctions (which calls one handler per
 * Task state name): each integration, its token, timeout and heartbeat, the Wait states the
 * runtime shortens, and the history events of each attempt.
 */

export type Overrides = NonNullable<RunOptions['overrides']>;
type TaskHandlers = NonNullable<Overrides['taskResourceLocalHandlers']>;
type JsonValue = Parameters<TaskHandlers[string]>[0];

export interface TaskRunnerDeps {
  readonly options: LocalStepFunctionsOptions;
  readonly now: () => Date;
  /** Every task token ever minted, with its run (the runtime answers SendTask* from it). */
  readonly tokens: Map<string, TaskRun>;
  /** What the library's static context resolves `$$.Task.Token`, `$$.State.EnteredTime` and `$$.State.Name` to. */
  readonly placeholders: { readonly token: string; readonly enteredTime: string; readonly name: string };
  record(execution: Execution, event: Omit<HistoryEvent, 'timestamp'>): void;
  startExecution(request: StartExecutionRequest): { executionArn: string; startDate: Date };
}

export class TaskRunner {
  constructor(private readonly deps: TaskRunnerDeps) {}

  private get clock(): StepFunctionsClock {
    return this.deps.options.clock ?? realClock;
  }

  overridesFor(execution: Execution): Overrides {
    const { prepared } = execution.machine;
    const { timeScale } = this.deps.options;
    const taskResourceLocalHandlers: TaskHandlers = {};
    for (const spec of prepared.tasks.values()) {
      taskResourceLocalHandlers[spec.stateName] = (input) =>
        this.runTask(execution, spec, input) as Promise<JsonValue>;
    }
    const waitTimeOverrides: Record<string, number> = {};
    for (const [stateName, wait] of prepared.waits) {
      if (wait.kind === 'seconds') {
        const ms = Math.min(MAX_TIMER_MS, scaledMs(wait.seconds, timeScale));
        // A Wait the execution stood in before a restart waits what was left of it.
        Object.defineProperty(waitTimeOverrides, stateName, {
          enumerable: true,
          get: () => Math.max(0, ms - this.waitedMs(this.takeResume(execution, stateName)?.enteredAt)),
        });
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
    return scaledMs(Math.max(0, at - this.deps.now().getTime()) / 1000, this.deps.options.timeScale);
  }

  /** The saved point a restored execution runs on from, when it is this state's (taken once). */
  private takeResume(execution: Execution, stateName: string): ResumePoint | undefined {
    const resume = execution.resume;
    if (resume?.stateName !== stateName) return undefined;
    execution.resume = undefined;
    return resume;
  }

  /** Milliseconds of the runtime's clock since `since` (epoch ms; 0 when undefined). */
  private waitedMs(since: number | undefined): number {
    return since === undefined ? 0 : Math.max(0, this.deps.now().getTime() - since);
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
    const resumed = this.takeResume(execution, spec.stateName);
    if (integration.kind === 'wait-path') {
      return this.runPathWait(execution, spec.stateName, integration.field, input, resumed?.enteredAt);
    }

    const { timeScale } = this.deps.options;
    const isCallback = integration.kind === 'lambda:invoke.waitForTaskToken';
    // A callback Task restored after a restart keeps the token its Lambda already handed out.
    const kept = isCallback && resumed?.token !== undefined ? resumed : undefined;
    const token = isCallback ? (kept?.token ?? mintToken()) : undefined;
    const effectiveInput = replacePlaceholders(input, {
      ...(token !== undefined && { [this.deps.placeholders.token]: token }),
      [this.deps.placeholders.enteredTime]: this.enteredTime(execution, spec.stateName).toISOString(),
      [this.deps.placeholders.name]: spec.stateName,
    });
    // The state's input after Parameters is held to the quota before anything runs.
    assertWithinDataLimit(effectiveInput, `The input of state '${spec.stateName}'`);
    const parameters = isRecord(effectiveInput) ? effectiveInput : {};
    const record = (event: Omit<HistoryEvent, 'timestamp'>) =>
      this.deps.record(execution, {
        ...event,
        stateName: spec.stateName,
        stateType: 'Task',
        resource: spec.resource,
      });
    if (!kept)
      record({
        type: 'TaskScheduled',
        parameters: effectiveInput,
        ...(spec.timeoutSeconds !== undefined && { timeoutSeconds: spec.timeoutSeconds }),
        ...(spec.heartbeatSeconds !== undefined && { heartbeatSeconds: spec.heartbeatSeconds }),
      });
    const run: TaskRun = new TaskRun({
      record,
      onSettled: () => execution.inFlight.delete(run),
      startTimer: (ms, fn) =>
        this.clock.startTimer(ms, fn, { execution: execution.name, state: spec.stateName }),
      // A kept token's Task times out on the runtime's timer: the library's counts from now.
      failsOnTimeout: this.clock.manual || kept !== undefined,
      ...(spec.timeoutSeconds !== undefined && {
        timeoutMs: Math.max(
          0,
          scaledTimeoutMs(spec.timeoutSeconds, taskTimeoutScale(integration, timeScale)) -
            (kept ? this.waitedMs(kept.scheduledAt) : performance.now() - enteredAt),
        ),
      }),
      ...(isCallback &&
        spec.heartbeatSeconds !== undefined && {
          heartbeatMs: scaledTimeoutMs(spec.heartbeatSeconds, timeScale),
        }),
    });
    execution.inFlight.add(run);
    if (token !== undefined) this.deps.tokens.set(token, run);
    if (kept) return run.result;
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
    const { invokeLambda } = this.deps.options;
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
      case 'codebuild:startBuild':
        runStartBuild(this.codebuild(), parameters, integration.sync, run, (output) =>
          record({ type: 'TaskSubmitted', output }),
        );
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
    return entered?.timestamp ?? this.deps.now();
  }

  /** A Wait on SecondsPath/TimestampPath, run as a Task: sleeps, then passes its input on. */
  private async runPathWait(
    execution: Execution,
    stateName: string,
    field: 'SecondsPath' | 'TimestampPath',
    input: unknown,
    resumedFrom?: number,
  ): Promise<unknown> {
    const { value, input: stateInput } = isRecord(input) ? input : {};
    let ms: number | undefined;
    if (field === 'SecondsPath') {
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
        ms = Math.max(0, scaledMs(value, this.deps.options.timeScale) - this.waitedMs(resumedFrom));
      }
    } else if (typeof value === 'string') {
      ms = this.msUntil(value);
    }
    if (ms === undefined) {
      throw new StatesRuntimeError(`The ${field} of the Wait state is not valid: ${JSON.stringify(value)}`);
    }
    await this.sleep(execution, stateName, ms);
    return stateInput ?? null;
  }

  private sleep(execution: Execution, state: string, ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const sleeper = {
        cancel: (executionArn: string) => {
          stop();
          reject(new ExecutionEndedError(executionArn));
        },
      };
      const stop = this.clock.startTimer(
        ms,
        () => {
          execution.inFlight.delete(sleeper);
          resolve();
        },
        { execution: execution.name, state },
      );
      execution.inFlight.add(sleeper);
    });
  }

  private startChildExecution(parameters: Record<string, unknown>): unknown {
    const { StateMachineArn, Input, Name } = parameters;
    if (typeof StateMachineArn !== 'string') {
      throw new StepFunctionsApiError('ValidationException', 'StateMachineArn is required');
    }
    const input = Input === undefined ? '{}' : typeof Input === 'string' ? Input : JSON.stringify(Input);
    const started = this.deps.startExecution({
      stateMachineArn: StateMachineArn,
      input,
      ...(typeof Name === 'string' && { name: Name }),
    });
    return { ExecutionArn: started.executionArn, StartDate: started.startDate.getTime() };
  }

  private codebuild(): CodeBuildPort {
    // registerStateMachine refuses CodeBuild integrations when none was given.
    if (!this.deps.options.codebuild) throw new StatesRuntimeError('No CodeBuild is configured');
    return this.deps.options.codebuild;
  }

  private dynamodb(): DynamoDBClient {
    // registerStateMachine refuses DynamoDB integrations when no client was given.
    if (!this.deps.options.dynamodb) throw new StatesRuntimeError('No DynamoDB client is configured');
    return this.deps.options.dynamodb;
  }

  private assertOpen(execution: Execution): void {
    if (execution.ended) throw new ExecutionEndedError(execution.executionArn);
  }
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
