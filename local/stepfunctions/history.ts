import type { StateMachine } from 'aws-local-stepfunctions';
import type { StateType } from './definition.ts';

/**
 * An execution's event history: the library's event log (state entered/exited/failed/retried/
 * caught, execution started/ended) plus the runtime's own Task events, which the library does
 * not know about (scheduled, started, submitted for a callback, succeeded/failed/timed out).
 */

export type HistoryEventType =
  | 'ExecutionStarted'
  | 'ExecutionSucceeded'
  | 'ExecutionFailed'
  | 'ExecutionAborted'
  | 'ExecutionTimedOut'
  | 'StateEntered'
  | 'StateExited'
  | 'StateFailed'
  | 'StateRetried'
  | 'StateCaught'
  | 'MapIterationStarted'
  | 'MapIterationSucceeded'
  | 'MapIterationFailed'
  | 'ParallelBranchStarted'
  | 'ParallelBranchSucceeded'
  | 'ParallelBranchFailed'
  | 'TaskScheduled'
  | 'TaskStarted'
  | 'TaskSubmitted'
  | 'TaskSucceeded'
  | 'TaskFailed'
  | 'TaskTimedOut';

export interface HistoryEvent {
  readonly timestamp: Date;
  readonly type: HistoryEventType;
  readonly stateName?: string;
  readonly stateType?: StateType;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly error?: string;
  readonly cause?: string;
  /** Task events: the Task's Resource as written. */
  readonly resource?: string;
  /** TaskScheduled: the effective Parameters the Task ran with (including a minted token). */
  readonly parameters?: unknown;
  /** TaskScheduled: the Task's TimeoutSeconds/HeartbeatSeconds as written (unscaled). */
  readonly timeoutSeconds?: number;
  readonly heartbeatSeconds?: number;
  /** The Map iteration the event belongs to. */
  readonly index?: number;
  /** StateRetried: which attempt this retry is. */
  readonly retryAttempt?: number;
}

/** The event type of `StateMachine#run().eventLogs`, which the library does not export. */
export type LibraryEvent =
  ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

export function causeText(cause: unknown): string {
  if (typeof cause === 'string') return cause;
  if (cause instanceof Error) return cause.message;
  return JSON.stringify(cause) ?? '';
}

/**
 * Maps a library event to a history event. `stateTypes` restores the type the definition gave a
 * state (the runtime runs Waits on SecondsPath/TimestampPath as Tasks); `stopReason` is the
 * error/cause StopExecution was given, which the library's abort event lacks.
 */
export function fromLibraryEvent(
  event: LibraryEvent,
  timestamp: Date,
  stateTypes: ReadonlyMap<string, StateType>,
  stopReason: { error?: string; cause?: string },
): HistoryEvent {
  switch (event.type) {
    case 'ExecutionStarted':
      return { timestamp, type: 'ExecutionStarted', input: event.input };
    case 'ExecutionSucceeded':
      return { timestamp, type: 'ExecutionSucceeded', output: event.output };
    case 'ExecutionFailed':
      return { timestamp, type: 'ExecutionFailed', error: event.Error, cause: causeText(event.Cause) };
    case 'ExecutionAborted':
      return { timestamp, type: 'ExecutionAborted', ...stopReason };
    case 'ExecutionTimeout':
      return { timestamp, type: 'ExecutionTimedOut', error: 'States.Timeout', cause: 'Execution timed out' };
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
    case 'MapIterationFailed':
    case 'ParallelBranchStarted':
    case 'ParallelBranchSucceeded':
    case 'ParallelBranchFailed':
      return {
        timestamp,
        type: event.type,
        stateName: event.parentState.name,
        stateType: event.parentState.type,
        ...('index' in event && { index: event.index }),
        ...('Error' in event && { error: event.Error, cause: causeText(event.Cause) }),
      };
    default: {
      const state = {
        timestamp,
        stateName: event.state.name,
        stateType: stateTypes.get(event.state.name) ?? event.state.type,
        ...(event.index !== undefined && { index: event.index }),
      };
      switch (event.type) {
        case 'StateEntered':
          return { ...state, type: 'StateEntered', input: event.state.input };
        case 'StateExited':
          return { ...state, type: 'StateExited', output: event.state.output };
        case 'StateFailed':
          return { ...state, type: 'StateFailed', error: event.Error, cause: causeText(event.Cause) };
        case 'StateRetried':
          return { ...state, type: 'StateRetried', retryAttempt: event.retry.attempt };
        case 'StateCaught':
          return { ...state, type: 'StateCaught' };
      }
    }
  }
}
