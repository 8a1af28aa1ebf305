import { StateMachine } from 'aws-local-stepfunctions';
import { MAX_LIBRARY_TIMER_SECONDS, startTimer } from './time.ts';

/**
 * The time the sandbox's Step Functions runs on: the clock its history and `$$.State.EnteredTime`
 * read, and the timers of the waits it runs itself (callback tasks' `TimeoutSeconds` and
 * `HeartbeatSeconds`, Wait states on `SecondsPath`/`TimestampPath`).
 *
 * - `realClock`: real time (shrunk by the time scale, as every duration is).
 * - `ManualClock`: those timers fire only when a test advances the clock, so a test about the
 *   order of things (a reply before or after a wait's timeout) says when the timeout comes
 *   instead of sleeping until it does. Seconds/Timestamp Wait states, Retry intervals and the
 *   execution's own `TimeoutSeconds` are slept by aws-local-stepfunctions itself: they stay on
 *   real (scaled) time.
 */
export interface StepFunctionsClock {
  now(): Date;
  /**
   * Runs `fn` after `ms` of this clock's time; returns a function that cancels it. `owner` names
   * the state that armed it, so a test can tell one timer from another.
   */
  startTimer(ms: number, fn: () => void, owner?: TimerOwner): () => void;
  /** True when timers fire only as the clock is advanced (`ManualClock`). */
  readonly manual: boolean;
  /** Back to real time with no timer armed (a sandbox serving its next user). */
  reset?(): void;
}

export const realClock: StepFunctionsClock = { now: () => new Date(), startTimer, manual: false };

/** The execution and state a timer belongs to. */
export interface TimerOwner {
  readonly execution: string;
  readonly state: string;
}

interface ManualTimer {
  readonly at: number;
  readonly fn: () => void;
  readonly owner?: TimerOwner | undefined;
}

/** An armed timer of the manual clock: how far away it is (ms) and the state that armed it. */
export interface ArmedTimer {
  readonly inMs: number;
  readonly owner?: TimerOwner | undefined;
}

export class ManualClock implements StepFunctionsClock {
  readonly manual = true;
  private offsetMs = 0;
  private nextId = 0;
  private readonly timers = new Map<number, ManualTimer>();

  /** Real time plus however far the clock was advanced. */
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  startTimer(ms: number, fn: () => void, owner?: TimerOwner): () => void {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now().getTime() + ms, fn, owner });
    return () => this.timers.delete(id);
  }

  reset(): void {
    this.timers.clear();
    this.offsetMs = 0;
  }

  /** How far away (ms) each armed timer is, soonest first. */
  pending(): number[] {
    return this.armed().map((timer) => timer.inMs);
  }

  /**
   * The armed timers, soonest first. Real time runs on between arming and reading, so on a busy
   * machine a timer may already stand at 0: find one by its owner, not by how far away it is.
   */
  armed(): ArmedTimer[] {
    const now = this.now().getTime();
    return [...this.timers.values()]
      .map((timer) => ({ inMs: Math.max(0, timer.at - now), owner: timer.owner }))
      .sort((a, b) => a.inMs - b.inMs);
  }

  /**
   * Moves the clock `ms` forward and fires, in order, every timer that falls due, letting what
   * each one starts run (and arm timers of its own) before the next fires.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`a clock advances by ms >= 0, got ${ms}`);
    const target = this.now().getTime() + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, timer]) => timer.at <= target)
        .sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
      if (!due) break;
      const [id, timer] = due;
      this.timers.delete(id);
      this.offsetMs += Math.max(0, timer.at - this.now().getTime());
      timer.fn();
      await settle();
    }
    this.offsetMs += Math.max(0, target - this.now().getTime());
  }

  /** Advances the clock to the soonest armed timer and fires it; false when none is armed. */
  async fireNext(): Promise<boolean> {
    const [soonest] = this.pending();
    if (soonest === undefined) return false;
    await this.advance(soonest);
    return true;
  }
}

/** Lets the work a timer started run a little: promise jobs and the I/O callbacks they wait for. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * aws-local-stepfunctions fails a Task on its own timer, with its own `States.Timeout` error:
 * the only one its `States.TaskFailed` matching knows to exempt, and it does not export the
 * class. Under a manual clock that timer must not run on real time, so the runtime disarms it
 * (`withoutLibraryTaskTimeouts`) and fails the Task with an instance of that same class, taken
 * once from a one-state machine that times out at once.
 */
let libraryTimeout: Promise<Error> | undefined;

export function libraryTimeoutError(): Promise<Error> {
  libraryTimeout ??= (async () => {
    const probe = new StateMachine(
      {
        StartAt: 'T',
        States: {
          T: {
            Type: 'Task',
            Resource: 'arn:aws:lambda:us-east-1:000000000000:function:clock-probe',
            TimeoutSeconds: 0.001,
            End: true,
          },
        },
      },
      { validationOptions: { noValidate: true } },
    );
    const run = probe.run(
      {},
      { overrides: { taskResourceLocalHandlers: { T: () => new Promise(() => {}) } } },
    );
    const error = await run.result.then(
      () => undefined,
      (failure: unknown) => (failure instanceof Error ? failure.cause : undefined),
    );
    if (!(error instanceof Error) || error.name !== 'States.Timeout')
      throw new Error('aws-local-stepfunctions did not fail its probe Task with States.Timeout');
    return error;
  })();
  return libraryTimeout;
}

/** A fresh `States.Timeout` of the library's own class. */
export async function newLibraryTimeout(): Promise<Error> {
  const prototype = Object.getPrototypeOf(await libraryTimeoutError()) as { constructor: new () => Error };
  return new prototype.constructor();
}

/** The definition with every Task's library timer disarmed (the runtime's clock times Tasks out). */
export function withoutLibraryTaskTimeouts(definition: unknown): unknown {
  if (Array.isArray(definition)) return definition.map(withoutLibraryTaskTimeouts);
  if (typeof definition !== 'object' || definition === null) return definition;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(definition)) copy[key] = withoutLibraryTaskTimeouts(value);
  if (copy.Type === 'Task' && typeof copy.TimeoutSeconds === 'number')
    copy.TimeoutSeconds = MAX_LIBRARY_TIMER_SECONDS;
  return copy;
}
