import { StateMachine } from 'aws-local-stepfunctions';
import { DataLimitExceededError } from './errors.ts';

/**
 * Step Functions' payload quota (256 KiB, UTF-8 bytes of the JSON text) for an execution's
 * input, each state's input after Parameters, each state's result and output, and the output
 * of SendTaskSuccess. Beyond it a state fails with `States.DataLimitExceeded`, which no Catch
 * handles (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html).
 */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/** The size Step Functions counts: the JSON text's UTF-8 bytes. */
export function payloadBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/** @throws DataLimitExceededError when `value` is over the quota. */
export function assertWithinDataLimit(value: unknown, what: string): void {
  const size = payloadBytes(value);
  if (size > MAX_PAYLOAD_BYTES) {
    throw new DataLimitExceededError(
      `${what} has a size exceeding the maximum number of bytes service limit (${size} > ${MAX_PAYLOAD_BYTES}).`,
    );
  }
}

type StateExited = (stateName: string, stateType: string, input: unknown, output: unknown) => void;
interface LibraryExecute {
  execute(
    input: unknown,
    options: { eventLogger: { dispatchStateExitedEvent: StateExited } },
    cleanup: () => void,
  ): Promise<unknown>;
}

let installed = false;

/**
 * Holds every state's output to the quota in aws-local-stepfunctions, which has no limit of
 * its own: each run (the execution's, and each Map iteration's and Parallel branch's) checks
 * the output of a state as the state exits. Thrown there, the error fails the run as the
 * state's own failure would: uncatchable, it ends the execution. The library (pinned in the
 * lockfile) records a state's exit through its run's event logger only; the sandbox's test of
 * the limit fails should a version change that.
 */
export function enforceStateOutputLimit(): void {
  if (installed) return;
  const prototype = StateMachine.prototype as unknown as LibraryExecute;
  const execute = prototype.execute;
  if (typeof execute !== 'function') {
    throw new Error(
      'aws-local-stepfunctions has no StateMachine.execute: the state output limit cannot be held',
    );
  }
  prototype.execute = function (this: LibraryExecute, input, options, cleanup) {
    const logger = options.eventLogger;
    const exited = logger.dispatchStateExitedEvent.bind(logger);
    logger.dispatchStateExitedEvent = (stateName, stateType, stateInput, output) => {
      assertWithinDataLimit(output, `The output of state '${stateName}'`);
      exited(stateName, stateType, stateInput, output);
    };
    return execute.call(this, input, options, cleanup);
  };
  installed = true;
}
