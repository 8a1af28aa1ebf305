import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { invalidDefinition } from './errors.ts';
import { checkStateContext } from './state-context.ts';
import { classifyResource, type TaskIntegration, taskTimeoutScale } from './task-resources.ts';
import { MAX_LIBRARY_TIMER_SECONDS, scaledMs, scaledTimeoutMs } from './time.ts';
import { validateOnce } from './validated-definitions.ts';

/**
 * Reads an ASL definition (JSONPath only) and prepares the copy that aws-local-stepfunctions
 * runs: every Task is listed with the integration it calls (the runtime overrides each one by
 * state name), and every duration the library applies itself is scaled by `timeScale`.
 *
 * What the copy changes, and why:
 * - Task `TimeoutSeconds` (scaled for callback tasks only, see `taskTimeoutScale`): the library arms its own timer for overridden Tasks too, with a 60 s
 *   default when the field is absent (real Step Functions has no default). The copy sets the
 *   scaled value plus `LIBRARY_TIMEOUT_MARGIN_MS`, or "never" (the longest timer Node can arm)
 *   when absent. The runtime notices the timeout first (at the scaled value) to retire the task
 *   token, and the library's timer then fails the state with its own `States.Timeout` error,
 *   which `States.TaskFailed` must not match (the library only exempts its own error class).
 * - `Retry`: `IntervalSeconds` (default 1) and `MaxDelaySeconds` are scaled in place, so backoff
 *   and jitter still apply per attempt (`retryIntervalOverrides` only takes one fixed pause per
 *   retrier, no backoff).
 * - The top-level `TimeoutSeconds` is scaled.
 * - `Wait` with `SecondsPath`/`TimestampPath` becomes a Task the runtime handles (the library's
 *   `waitTimeOverrides` are fixed numbers read without the state's input). `Seconds` and
 *   `Timestamp` waits stay Wait states, shortened through `waitTimeOverrides`.
 */

export type StateType = 'Task' | 'Parallel' | 'Map' | 'Pass' | 'Wait' | 'Choice' | 'Succeed' | 'Fail';

export interface TaskSpec {
  readonly stateName: string;
  /** The Resource as written (for `wait-path`, the Wait state's pseudo resource). */
  readonly resource: string;
  readonly integration: TaskIntegration;
  /** As written in the definition (unscaled), if present. */
  readonly timeoutSeconds?: number;
  readonly heartbeatSeconds?: number;
}

export type WaitOverride =
  | { readonly kind: 'seconds'; readonly seconds: number }
  | { readonly kind: 'timestamp'; readonly timestamp: string };

export interface PreparedDefinition {
  /** The definition as registered (what DescribeStateMachine returns). */
  readonly source: string;
  /** The copy aws-local-stepfunctions runs. */
  readonly runnable: StateMachineDefinition;
  readonly tasks: ReadonlyMap<string, TaskSpec>;
  readonly waits: ReadonlyMap<string, WaitOverride>;
  /** Every state's type by name, as written (the copy may run a Wait as a Task). */
  readonly stateTypes: ReadonlyMap<string, StateType>;
}

/**
 * How much later than the runtime's own task timeout the library's timer fires: the runtime
 * must retire the token first, so a late SendTaskSuccess cannot complete a timed-out task.
 */
const LIBRARY_TIMEOUT_MARGIN_MS = 20;

/** The pseudo resource of a Wait on SecondsPath/TimestampPath that the runtime runs as a Task. */
const PATH_WAIT_RESOURCE = 'arn:aws:states:::sandbox:wait';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const STATE_TYPES: readonly string[] = [
  'Task',
  'Parallel',
  'Map',
  'Pass',
  'Wait',
  'Choice',
  'Succeed',
  'Fail',
];

/** Fields of the JSONata query language, which the library ignores silently. */
const JSONATA_FIELDS = ['Assign', 'Arguments', 'Output'] as const;

export function prepareDefinition(
  definition: unknown,
  options: { timeScale: number; hasDynamoDb: boolean; hasCodeBuild?: boolean },
): PreparedDefinition {
  const parsed = parseDefinition(definition);
  const source = JSON.stringify(parsed);
  try {
    // Validates the definition as written (states reachable, paths well formed); the copy
    // below is run unvalidated because it holds fractional, scaled durations.
    validateOnce(source, parsed as unknown as StateMachineDefinition);
  } catch (error) {
    throw invalidDefinition(error instanceof Error ? error.message : String(error));
  }
  const preparer = new DefinitionPreparer(
    options.timeScale,
    options.hasDynamoDb,
    options.hasCodeBuild ?? false,
  );
  const runnable = preparer.machine(parsed, true);
  return {
    source,
    runnable: runnable as unknown as StateMachineDefinition,
    tasks: preparer.tasks,
    waits: preparer.waits,
    stateTypes: preparer.stateTypes,
  };
}

function parseDefinition(definition: unknown): Json {
  let value = definition;
  if (typeof definition === 'string') {
    try {
      value = JSON.parse(definition);
    } catch (error) {
      throw invalidDefinition(`not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (!isRecord(value)) throw invalidDefinition('the definition must be a JSON object');
  return value;
}

class DefinitionPreparer {
  readonly tasks = new Map<string, TaskSpec>();
  readonly waits = new Map<string, WaitOverride>();
  readonly stateTypes = new Map<string, StateType>();

  constructor(
    private readonly timeScale: number,
    private readonly hasDynamoDb: boolean,
    private readonly hasCodeBuild: boolean,
  ) {}

  machine(machine: Json, isRoot: boolean): Json {
    if (machine.QueryLanguage === 'JSONata') {
      throw invalidDefinition('QueryLanguage JSONata is not supported; use JSONPath');
    }
    const states = machine.States;
    if (!isRecord(states)) throw invalidDefinition('States must be an object');
    const copy: Json = { ...machine, States: {} };
    if (isRoot && typeof machine.TimeoutSeconds === 'number') {
      copy.TimeoutSeconds = libraryTimeoutSeconds(machine.TimeoutSeconds, this.timeScale);
    }
    const copiedStates: Json = {};
    for (const [name, state] of Object.entries(states)) {
      if (!isRecord(state)) throw invalidDefinition(`state '${name}' must be an object`);
      copiedStates[name] = this.state(name, state);
    }
    copy.States = copiedStates;
    return copy;
  }

  private state(name: string, state: Json): Json {
    const type = state.Type;
    if (typeof type !== 'string' || !STATE_TYPES.includes(type)) {
      throw invalidDefinition(`state '${name}' has an unknown Type ${JSON.stringify(type)}`);
    }
    if (this.stateTypes.has(name)) {
      throw invalidDefinition(`state name '${name}' is used twice (names must be unique across the machine)`);
    }
    this.stateTypes.set(name, type as StateType);
    if (state.QueryLanguage === 'JSONata') {
      throw invalidDefinition(`state '${name}' uses QueryLanguage JSONata; use JSONPath`);
    }
    const jsonataField = JSONATA_FIELDS.find((field) => field in state);
    if (jsonataField) {
      throw invalidDefinition(`state '${name}' uses '${jsonataField}', which the local runtime would ignore`);
    }
    checkStateContext(name, type, state);
    switch (type) {
      case 'Task':
        return this.retrying(this.task(name, state));
      case 'Parallel': {
        const branches = state.Branches;
        if (!Array.isArray(branches)) throw invalidDefinition(`Parallel state '${name}' needs Branches`);
        return this.retrying({
          ...state,
          Branches: branches.map((branch: unknown) => this.machine(asMachine(branch, name), false)),
        });
      }
      case 'Map':
        return this.retrying(this.map(name, state));
      case 'Wait':
        return this.wait(name, state);
      default:
        return state;
    }
  }

  private task(name: string, state: Json): Json {
    const resource = state.Resource;
    if (typeof resource !== 'string') throw invalidDefinition(`Task state '${name}' needs a Resource`);
    for (const field of ['TimeoutSecondsPath', 'HeartbeatSecondsPath']) {
      if (field in state) {
        throw invalidDefinition(
          `Task state '${name}' uses ${field}; the sandbox supports fixed seconds only`,
        );
      }
    }
    const integration = classifyResource(resource, name, this.hasDynamoDb, this.hasCodeBuild);
    const timeoutSeconds = typeof state.TimeoutSeconds === 'number' ? state.TimeoutSeconds : undefined;
    const heartbeatSeconds = typeof state.HeartbeatSeconds === 'number' ? state.HeartbeatSeconds : undefined;
    this.tasks.set(name, {
      stateName: name,
      resource,
      integration,
      ...(timeoutSeconds !== undefined && { timeoutSeconds }),
      ...(heartbeatSeconds !== undefined && { heartbeatSeconds }),
    });
    return {
      ...state,
      TimeoutSeconds: libraryTaskTimeoutSeconds(
        timeoutSeconds,
        taskTimeoutScale(integration, this.timeScale),
      ),
    };
  }

  private map(name: string, state: Json): Json {
    const processor = state.ItemProcessor ?? state.Iterator;
    const processorMachine = asMachine(processor, name);
    const config = processorMachine.ProcessorConfig;
    if (isRecord(config) && config.Mode === 'DISTRIBUTED') {
      throw invalidDefinition(`Map state '${name}' is a distributed Map, which the sandbox does not run`);
    }
    for (const field of ['ItemReader', 'ResultWriter', 'ItemBatcher']) {
      if (field in state)
        throw invalidDefinition(`Map state '${name}' uses ${field}, which the sandbox lacks`);
    }
    const key = state.ItemProcessor !== undefined ? 'ItemProcessor' : 'Iterator';
    return { ...state, [key]: this.machine(processorMachine, false) };
  }

  private wait(name: string, state: Json): Json {
    if (typeof state.Seconds === 'number') {
      this.waits.set(name, { kind: 'seconds', seconds: state.Seconds });
      return state;
    }
    if (typeof state.Timestamp === 'string') {
      this.waits.set(name, { kind: 'timestamp', timestamp: state.Timestamp });
      return state;
    }
    const field = typeof state.SecondsPath === 'string' ? 'SecondsPath' : 'TimestampPath';
    const path = state[field];
    if (typeof path !== 'string') {
      throw invalidDefinition(`Wait state '${name}' needs Seconds, Timestamp, SecondsPath or TimestampPath`);
    }
    this.tasks.set(name, {
      stateName: name,
      resource: PATH_WAIT_RESOURCE,
      integration: { kind: 'wait-path', field },
    });
    // Run as a Task whose handler receives the path's value and the state's effective input,
    // and returns that input: the same output as the Wait (InputPath, then OutputPath).
    const { SecondsPath: _seconds, TimestampPath: _timestamp, ...rest } = state;
    return {
      ...rest,
      Type: 'Task',
      Resource: PATH_WAIT_RESOURCE,
      Parameters: { 'value.$': path, 'input.$': '$' },
      TimeoutSeconds: MAX_LIBRARY_TIMER_SECONDS,
    };
  }

  private retrying(state: Json): Json {
    const retry = state.Retry;
    if (!Array.isArray(retry)) return state;
    return {
      ...state,
      Retry: retry.map((retrier: unknown) => {
        if (!isRecord(retrier)) return retrier;
        const interval = typeof retrier.IntervalSeconds === 'number' ? retrier.IntervalSeconds : 1;
        const scaled: Json = { ...retrier, IntervalSeconds: scaledMs(interval, this.timeScale) / 1000 };
        if (typeof retrier.MaxDelaySeconds === 'number') {
          scaled.MaxDelaySeconds = scaledTimeoutMs(retrier.MaxDelaySeconds, this.timeScale) / 1000;
        }
        return scaled;
      }),
    };
  }
}

function asMachine(value: unknown, stateName: string): Json {
  if (!isRecord(value) || !isRecord(value.States) || typeof value.StartAt !== 'string') {
    throw invalidDefinition(`state '${stateName}' holds a malformed nested state machine`);
  }
  return value;
}

function libraryTimeoutSeconds(seconds: number, timeScale: number): number {
  return Math.min(MAX_LIBRARY_TIMER_SECONDS, scaledTimeoutMs(seconds, timeScale) / 1000);
}

function libraryTaskTimeoutSeconds(seconds: number | undefined, timeScale: number): number {
  if (seconds === undefined) return MAX_LIBRARY_TIMER_SECONDS;
  const ms = scaledTimeoutMs(seconds, timeScale) + LIBRARY_TIMEOUT_MARGIN_MS;
  return Math.min(MAX_LIBRARY_TIMER_SECONDS, ms / 1000);
}
