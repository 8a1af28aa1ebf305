import { newLibraryTimeout } from './clock.ts';
import { MAX_PAYLOAD_BYTES, payloadBytes } from './data-limits.ts';
import { DataLimitExceededError, ExecutionEndedError, TaskFailure } from './errors.ts';
import type { HistoryEvent } from './history.ts';
import { startTimer } from './time.ts';

export { MAX_PAYLOAD_BYTES };

export type TaskRunStatus = 'pending' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

/** The part of a history event a task run knows; the runtime adds state name, type and resource. */
export type TaskEvent = Omit<HistoryEvent, 'timestamp' | 'stateName' | 'stateType' | 'resource'>;

export interface TaskRunOptions {
  /** Record one of this task's events in the execution history. */
  readonly record: (event: TaskEvent) => void;
  /** Called once when the run leaves `pending`, whatever the reason. */
  readonly onSettled: () => void;
  /** The Task's scaled TimeoutSeconds, if it has one. */
  readonly timeoutMs?: number;
  /** The Task's scaled HeartbeatSeconds, if it has one (callback tasks only). */
  readonly heartbeatMs?: number;
  /** Arms the timeout and heartbeat timers (the runtime's clock). @default real time */
  readonly startTimer?: (ms: number, fn: () => void) => () => void;
  /**
   * The library's own timer is disarmed (a manual clock): a timeout fails the Task itself.
   * @default false
   */
  readonly failsOnTimeout?: boolean;
}

/**
 * One attempt of one Task state: the promise the library awaits, settled exactly once by the
 * first of: the integration's result, a failure, a timeout, or the execution ending.
 */
export class TaskRun {
  readonly result: Promise<unknown>;
  private state: TaskRunStatus = 'pending';
  private readonly resolveResult: (value: unknown) => void;
  private readonly rejectResult: (error: Error) => void;
  private cancelTimeout: (() => void) | undefined;
  private cancelHeartbeat: (() => void) | undefined;

  constructor(private readonly options: TaskRunOptions) {
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    this.result = promise;
    this.resolveResult = resolve;
    this.rejectResult = reject;
    if (options.timeoutMs !== undefined) {
      this.cancelTimeout = this.timer(options.timeoutMs, () => this.timeOut());
    }
    this.armHeartbeat();
  }

  get status(): TaskRunStatus {
    return this.state;
  }

  get pending(): boolean {
    return this.state === 'pending';
  }

  succeed(output: unknown): void {
    if (!this.pending) return;
    const size = payloadBytes(output);
    if (size > MAX_PAYLOAD_BYTES) {
      // Terminal, as in Step Functions: no Retry or Catch of the state sees it.
      const error = new DataLimitExceededError(
        `The state/task returned a result with a size exceeding the maximum number of bytes service limit (${size} > ${MAX_PAYLOAD_BYTES}).`,
      );
      this.settle('failed');
      this.options.record({ type: 'TaskFailed', error: error.name, cause: error.message });
      this.rejectResult(error);
      return;
    }
    this.settle('succeeded');
    this.options.record({ type: 'TaskSucceeded', output });
    this.resolveResult(output);
  }

  fail(error: string, cause: string): void {
    if (!this.pending) return;
    this.settle('failed');
    this.options.record({ type: 'TaskFailed', error, cause });
    this.rejectResult(new TaskFailure(error, cause));
  }

  heartbeat(): void {
    if (this.pending) this.armHeartbeat();
  }

  /** The execution ended while this task ran: free whoever awaits it, record nothing. */
  cancel(executionArn: string): void {
    if (!this.pending) return;
    this.settle('cancelled');
    this.rejectResult(new ExecutionEndedError(executionArn));
  }

  private timeOut(): void {
    if (!this.pending) return;
    this.settle('timed_out');
    this.options.record({ type: 'TaskTimedOut', error: 'States.Timeout', cause: 'Task timed out' });
    // Left pending on purpose: the library's own timer (armed a little later, see
    // LIBRARY_TIMEOUT_MARGIN_MS) fails the state with its States.Timeout error, the only one
    // its `States.TaskFailed` matching knows to exempt. Ignoring the integration's late result
    // keeps the library from taking it in the meantime.
    if (this.options.failsOnTimeout) void newLibraryTimeout().then((error) => this.rejectResult(error));
  }

  private timer(ms: number, fn: () => void): () => void {
    return (this.options.startTimer ?? startTimer)(ms, fn);
  }

  private armHeartbeat(): void {
    this.cancelHeartbeat?.();
    const ms = this.options.heartbeatMs;
    if (ms === undefined) return;
    this.cancelHeartbeat = this.timer(ms, () => {
      if (!this.pending) return;
      this.settle('timed_out');
      const cause = 'No heartbeat was sent within HeartbeatSeconds';
      this.options.record({ type: 'TaskTimedOut', error: 'States.HeartbeatTimeout', cause });
      this.rejectResult(new TaskFailure('States.HeartbeatTimeout', cause));
    });
  }

  private settle(state: Exclude<TaskRunStatus, 'pending'>): void {
    this.state = state;
    this.cancelTimeout?.();
    this.cancelHeartbeat?.();
    this.options.onSettled();
  }
}
