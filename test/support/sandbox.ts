import { vi } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../local/sandbox-options.ts';

/**
 * The way tests get a sandbox. Sandbox test files run in the `sandbox` project of
 * vitest.config.ts: one worker process runs one file after another, so the AWS SDK, dynalite,
 * the Step Functions interpreter and the rest of what a sandbox loads are loaded once per
 * worker, not once per file. The worker holds one sandbox at a time:
 *
 * - `workerSandbox(options)` gives the file its sandbox. It stops whatever sandbox an earlier
 *   file of this worker left running, and makes the worker's module registry forget the
 *   project's own modules (`vi.resetModules()`), so the Lambda handlers this sandbox loads are
 *   evaluated afresh: a handler keeps the clients it built from the environment on first use,
 *   and this sandbox's environment (its port, its table, its model) is not the last one's.
 *   What node_modules holds stays loaded: that is the saving.
 * - `stop()` (the file's `afterAll`) stops it, as before.
 *
 * A file whose own code touches process-wide state (see test/support/isolation.ts) still runs
 * in a process of its own, and `workerSandbox` then just starts its sandbox there. Calling
 * `startSandbox` from `local/sandbox.ts` directly also keeps working: such a file is placed
 * in the isolated project, where nothing it does can reach another file.
 */

const WORKER = Symbol.for('slack-agent-workflows.test.worker-sandbox');

interface WorkerState {
  /** The sandbox a file of this worker is using, if any. */
  current: Sandbox | undefined;
  /** How many sandboxes this worker has started (the first needs no module reset). */
  started: number;
}

function workerState(): WorkerState {
  const holder = globalThis as { [WORKER]?: WorkerState };
  holder[WORKER] ??= { current: undefined, started: 0 };
  return holder[WORKER];
}

/** A sandbox for this test file on a free port, in a worker shared with other sandbox files. */
export async function workerSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const state = workerState();
  if (state.current) {
    // An earlier file did not stop its sandbox (it failed in its setup, say): stop it now.
    const left = state.current;
    state.current = undefined;
    await left.stop().catch(() => undefined);
  }
  if (state.started > 0) vi.resetModules();
  state.started += 1;
  // Imported here, after the reset: the sandbox and the handlers it loads are this file's own.
  const { startSandbox } = await import('../../local/sandbox.ts');
  const sandbox = await startSandbox({ port: 0, ...options });
  state.current = sandbox;
  const stop = sandbox.stop.bind(sandbox);
  return Object.assign(sandbox, {
    async stop() {
      if (state.current === sandbox) state.current = undefined;
      await stop();
    },
  });
}
