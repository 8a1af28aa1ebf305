import { StateMachine } from 'aws-local-stepfunctions';
import * as z from 'zod';
import { prepareDefinition } from './definition.ts';
import {
  DEFAULT_ROLE_ARN,
  type Execution,
  type ExecutionStatus,
  type RegisteredMachine,
} from './execution.ts';
import type { HistoryEvent } from './history.ts';
import type { TaskRun } from './task-run.ts';

/**
 * The executions of a sandbox that keeps its state across restarts (`--state`): what
 * `LocalStepFunctions.snapshot()` writes when the sandbox stops and `restore()` reads when it
 * starts. An ended execution comes back as it was. A running one comes back where it stood: the
 * top-level state it had entered and not left, with that state's input, and, when that state is
 * a callback Task whose Lambda already ran, the task token it handed out, which stays valid. The
 * runtime runs the execution on from that state (aws-local-stepfunctions starts a copy of the
 * definition there), so a wait keeps its token and the time it already waited, and a Task that
 * ran code when the sandbox stopped runs again from its start.
 */

/** Where a running execution stood when it was saved. */
export interface ResumePoint {
  readonly stateName: string;
  readonly input: unknown;
  /** When the state was entered (epoch ms): a Wait counts its time from there. */
  readonly enteredAt: number;
  /** The callback Task's token, handed out before the stop, and when its Task was scheduled. */
  readonly token?: string;
  readonly scheduledAt?: number;
}

const eventSchema = z
  .object({ timestamp: z.string(), type: z.string(), stateName: z.string().optional() })
  .passthrough();

const resumeSchema = z.object({
  stateName: z.string(),
  input: z.unknown(),
  enteredAt: z.number(),
  token: z.string().optional(),
  scheduledAt: z.number().optional(),
});

export const executionSnapshotSchema = z.object({
  executionArn: z.string(),
  stateMachineArn: z.string(),
  versionArn: z.string().optional(),
  aliasArn: z.string().optional(),
  name: z.string(),
  input: z.string(),
  startDate: z.number(),
  status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED']),
  stopDate: z.number().optional(),
  output: z.string().optional(),
  error: z.string().optional(),
  cause: z.string().optional(),
  history: z.array(eventSchema),
  resume: resumeSchema.optional(),
});

/** An execution as saved (checked with `executionSnapshotSchema` when read). */
export type ExecutionSnapshot = Omit<z.infer<typeof executionSnapshotSchema>, 'resume'> & {
  resume?: ResumePoint;
};

/** An execution as saved; a running one with where it stands (`tokens`: every token minted). */
export function snapshotOf(execution: Execution, tokens: ReadonlyMap<string, TaskRun>): ExecutionSnapshot {
  const history = execution.history.map((event) => ({
    ...event,
    timestamp: event.timestamp.toISOString(),
  }));
  const resume =
    execution.status === 'RUNNING' ? resumePointOf(execution, pendingTokenOf(execution, tokens)) : undefined;
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.machine.description.stateMachineArn,
    ...(execution.versionArn !== undefined && { versionArn: execution.versionArn }),
    ...(execution.aliasArn !== undefined && { aliasArn: execution.aliasArn }),
    name: execution.name,
    input: execution.input,
    startDate: execution.startDate.getTime(),
    status: execution.status,
    ...(execution.stopDate !== undefined && { stopDate: execution.stopDate.getTime() }),
    ...(execution.output !== undefined && { output: execution.output }),
    ...(execution.error !== undefined && { error: execution.error }),
    ...(execution.cause !== undefined && { cause: execution.cause }),
    history: history as ExecutionSnapshot['history'],
    ...(resume !== undefined && { resume }),
  };
}

/** The history as the runtime keeps it (dates, not strings). */
export function historyOf(snapshot: ExecutionSnapshot): HistoryEvent[] {
  return snapshot.history.map(
    (event) => ({ ...event, timestamp: new Date(event.timestamp) }) as unknown as HistoryEvent,
  );
}

/** The token of the execution's callback Task still waiting, if one is. */
function pendingTokenOf(execution: Execution, tokens: ReadonlyMap<string, TaskRun>): string | undefined {
  for (const [token, run] of tokens) {
    if (run.pending && execution.inFlight.has(run)) return token;
  }
  return undefined;
}

/**
 * The top-level state the execution had entered and not left (Map iterations, which carry an
 * index, are inside their Map state). Between two states (the last one exited, the next not yet
 * entered) it is the next one, with the last one's output; a Choice is evaluated again.
 */
function resumePointOf(execution: Execution, token: string | undefined): ResumePoint {
  const definition = execution.machine.prepared.runnable as {
    StartAt: string;
    States: Record<string, { Type?: string; Next?: string }>;
  };
  let point: ResumePoint = {
    stateName: definition.StartAt,
    input: JSON.parse(execution.input) as unknown,
    enteredAt: execution.startDate.getTime(),
  };
  let scheduledAt: number | undefined;
  for (const event of execution.history) {
    if (event.index !== undefined || event.stateName === undefined) continue;
    if (!Object.hasOwn(definition.States, event.stateName)) continue;
    const at = event.timestamp.getTime();
    if (event.type === 'StateEntered') {
      point = { stateName: event.stateName, input: event.input, enteredAt: at };
      scheduledAt = undefined;
    } else if (event.type === 'TaskScheduled' && event.stateName === point.stateName) {
      scheduledAt = at;
    } else if (event.type === 'StateExited' && event.stateName === point.stateName) {
      const state = definition.States[event.stateName];
      if (state?.Type !== 'Choice' && state?.Next !== undefined) {
        point = { stateName: state.Next, input: event.output, enteredAt: at };
      }
    }
  }
  return token !== undefined && scheduledAt !== undefined ? { ...point, token, scheduledAt } : point;
}

/** The record of a saved execution, on the machine registered under its ARN now. */
function restoredExecution(snapshot: ExecutionSnapshot, machine: RegisteredMachine): Execution {
  return {
    machine,
    ...(snapshot.versionArn !== undefined && { versionArn: snapshot.versionArn }),
    ...(snapshot.aliasArn !== undefined && { aliasArn: snapshot.aliasArn }),
    executionArn: snapshot.executionArn,
    name: snapshot.name,
    input: snapshot.input,
    startDate: new Date(snapshot.startDate),
    status: snapshot.status as ExecutionStatus,
    ...(snapshot.stopDate !== undefined && { stopDate: new Date(snapshot.stopDate) }),
    ...(snapshot.output !== undefined && { output: snapshot.output }),
    ...(snapshot.error !== undefined && { error: snapshot.error }),
    ...(snapshot.cause !== undefined && { cause: snapshot.cause }),
    stopReason: {},
    history: historyOf(snapshot),
    inFlight: new Set(),
    ended: snapshot.status !== 'RUNNING',
    abort: () => {},
    done: Promise.resolve(),
    ...(snapshot.resume !== undefined && { resume: snapshot.resume }),
  };
}

export interface RestorePort {
  readonly timeScale: number;
  now(): Date;
  machine(arn: string): RegisteredMachine | undefined;
  add(execution: Execution): void;
  record(execution: Execution, event: Omit<HistoryEvent, 'timestamp'>): void;
  /** Runs the execution on from `startAt` with `input`. */
  launch(execution: Execution, startAt: string, input: unknown): void;
}

/**
 * Takes back saved executions: ended ones as they were, running ones run on from the state they
 * stood in, on the definition registered now under their state machine's ARN. One that cannot
 * (its state machine or its state is gone) fails with `States.Runtime`, saying why.
 */
export function restoreExecutions(snapshots: readonly ExecutionSnapshot[], port: RestorePort): void {
  for (const snapshot of snapshots) {
    const machine = port.machine(snapshot.stateMachineArn);
    const execution = restoredExecution(snapshot, machine ?? placeholderMachine(snapshot, port.timeScale));
    port.add(execution);
    if (snapshot.status !== 'RUNNING') continue;
    const refused = cannotResume(snapshot, machine);
    if (refused !== undefined || !execution.resume) {
      const cause = `The execution could not run on after a restart: ${refused ?? 'no state to run on from'}`;
      Object.assign(execution, { status: 'FAILED', error: 'States.Runtime', cause, ended: true });
      execution.stopDate = port.now();
      port.record(execution, { type: 'ExecutionFailed', error: 'States.Runtime', cause });
      continue;
    }
    const { stateName, input } = execution.resume;
    execution.replayed = new Set(['ExecutionStarted', 'StateEntered']);
    // Only a Task or a Wait takes up where it stood (a token, the time waited); any other state
    // runs again, and must not hand its point to a later visit of the same state.
    const type = machine?.prepared.stateTypes.get(stateName);
    if (type !== 'Task' && type !== 'Wait') execution.resume = undefined;
    port.launch(execution, stateName, input);
  }
}

/** Why a saved running execution cannot run on here, or undefined when it can. */
function cannotResume(
  snapshot: ExecutionSnapshot,
  machine: RegisteredMachine | undefined,
): string | undefined {
  if (!machine) return `its state machine ${snapshot.stateMachineArn} no longer exists`;
  const stateName = snapshot.resume?.stateName;
  const states = (machine.prepared.runnable as { States: Record<string, unknown> }).States;
  if (stateName === undefined || !Object.hasOwn(states, stateName)) {
    return `the state '${stateName}' it stood in no longer exists in ${machine.description.name}`;
  }
  return undefined;
}

/** The record a saved execution keeps when its state machine is no longer registered. */
function placeholderMachine(snapshot: ExecutionSnapshot, timeScale: number): RegisteredMachine {
  const name = snapshot.stateMachineArn.slice(snapshot.stateMachineArn.lastIndexOf(':') + 1);
  const definition = { StartAt: 'Gone', States: { Gone: { Type: 'Succeed' } } };
  const prepared = prepareDefinition(definition, { timeScale, hasDynamoDb: false });
  return {
    description: {
      stateMachineArn: snapshot.stateMachineArn,
      name,
      definition: prepared.source,
      roleArn: DEFAULT_ROLE_ARN,
      type: 'STANDARD',
      status: 'ACTIVE',
      creationDate: new Date(snapshot.startDate),
    },
    prepared,
    runner: new StateMachine(prepared.runnable, { validationOptions: { noValidate: true } }),
  };
}
