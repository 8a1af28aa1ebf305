/**
 * What an execution's history says about each state, as the Step Functions console colours
 * its graph: the state running now, the states that ran (succeeded, failed, or failed with the
 * error caught), the transitions taken, and each state's latest input and output.
 */

export interface PathEvent {
  type: string;
  stateName?: string;
  timestamp: string;
  input?: string;
  output?: string;
  error?: string;
}

export type StateStatus = 'current' | 'succeeded' | 'failed' | 'caught';

export interface StateRun {
  status: StateStatus;
  /** Times the state was entered. */
  entered: number;
  /** Failed attempts (retries and the error a Catch took). */
  failures: number;
  lastInput?: string;
  lastOutput?: string;
  lastError?: string;
}

export interface ExecutionPath {
  states: Map<string, StateRun>;
  /** Transitions taken, as `edgeKey(from, to)`. */
  taken: Set<string>;
  /** The state running now, when the execution runs. */
  current?: string;
  /** The state entered last (the one running now, or where the execution ended). */
  last?: string;
}

const FAILURE = /(Failed|TimedOut|Aborted)$/;

export function executionPath(events: readonly PathEvent[], executionStatus: string): ExecutionPath {
  const states = new Map<string, StateRun>();
  const taken = new Set<string>();
  let current: string | undefined;
  let previous: string | undefined;
  let failedInCurrent = false;
  for (const event of events) {
    if (event.type.endsWith('StateEntered') && event.stateName !== undefined) {
      const name = event.stateName;
      if (previous !== undefined) taken.add(`${previous}\u0000${name}`);
      const run = states.get(name) ?? { status: 'current', entered: 0, failures: 0 };
      run.status = 'current';
      run.entered += 1;
      if (event.input !== undefined) run.lastInput = event.input;
      states.set(name, run);
      current = name;
      previous = name;
      failedInCurrent = false;
    } else if (event.type.endsWith('StateExited') && event.stateName !== undefined) {
      const run = states.get(event.stateName);
      if (run) {
        run.status = failedInCurrent ? 'caught' : 'succeeded';
        if (event.output !== undefined) run.lastOutput = event.output;
      }
      if (current === event.stateName) current = undefined;
    } else if (FAILURE.test(event.type) && !event.type.startsWith('Execution')) {
      const run = current === undefined ? undefined : states.get(current);
      if (run) {
        run.failures += 1;
        if (event.error !== undefined) run.lastError = event.error;
      }
      failedInCurrent = true;
    } else if (/(Succeeded)$/.test(event.type) && !event.type.startsWith('Execution')) {
      // A retry that worked: the state did not fail after all.
      failedInCurrent = false;
    }
  }
  if (current !== undefined) {
    const run = states.get(current);
    if (run && executionStatus !== 'RUNNING')
      run.status = executionStatus === 'SUCCEEDED' ? 'succeeded' : 'failed';
  }
  const running = executionStatus === 'RUNNING' ? current : undefined;
  const last = previous === undefined ? {} : { last: previous };
  return running === undefined ? { states, taken, ...last } : { states, taken, current: running, ...last };
}
