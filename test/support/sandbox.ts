import { vi } from 'vitest';
import { keptInProcess } from '../../lambdas/shared/kept.ts';
import type { ReusableSandbox } from '../../local/sandbox.ts';
import type { Sandbox, SandboxOptions } from '../../local/sandbox-options.ts';
import { sandboxReuseKey } from './sandbox-reuse-key.ts';

/**
 * The way tests get a sandbox. Sandbox test files run in the `sandbox` project of
 * vitest.config.ts: one worker process runs one file after another, so the AWS SDK, dynalite,
 * the Step Functions interpreter and the rest of what a sandbox loads are loaded once per
 * worker, not once per file. A worker also keeps the sandboxes its files used
 * (docs/testing.md, "One sandbox for many files"):
 *
 * - `workerSandbox(options)` gives the file its sandbox. When an earlier file of this worker
 *   used one with the same options (the same key, ./sandbox-reuse-key.ts), that one serves
 *   again with a fresh world: new tables, queues, fake Slack, GitHub, telemetry and model faults,
 *   no execution, build or task token of the last file, and the Lambda handlers loaded anew.
 *   Otherwise a new sandbox starts. Either way the worker's module registry first forgets the
 *   project's own modules (`vi.resetModules()`), so the handlers this file's sandbox loads are
 *   evaluated afresh: a handler keeps the clients and caches it built on first use.
 * - `stop()` (the file's `afterAll`) ends the file's work, as before: the fake Slack's events no
 *   longer reach the ingress, queues are no longer polled, every execution and build is
 *   stopped, every handler invocation has ended and the world is thrown away; the sandbox stays for the next file with its options. If some
 *   invocation does not end in time, the sandbox is closed instead.
 *
 * A worker keeps at most `KEPT` idle sandboxes (the least recently used is closed). A file whose
 * own code touches process-wide state (see test/support/isolation.ts) runs in the `fresh`
 * project, whose workers reset the modules before each file, and `workerSandbox` serves it the
 * same way there; in a process of its own (the `isolated` project) it just starts its sandbox.
 */

/**
 * Idle sandboxes a worker keeps for later files; `SANDBOX_REUSE=off` keeps none (each file starts
 * its own), and neither does a process that is not a Vitest worker (a benchmark driving a harness:
 * it has no later file, and a kept sandbox would keep it from exiting).
 */
const KEPT = process.env.SANDBOX_REUSE === 'off' || process.env.VITEST === undefined ? 0 : 3;

interface Entry {
  key: string;
  reusable: ReusableSandbox;
}

interface WorkerState {
  /** The sandbox a file of this worker is using, if any. */
  current: Entry | undefined;
  /** Idle sandboxes, the most recently used first. */
  idle: Entry[];
  /** How many files of this worker got a sandbox (the first needs no module reset). */
  started: number;
  /** How many of them got a kept sandbox. */
  reused: number;
}

function workerState(): WorkerState {
  return keptInProcess('test.worker-sandbox', () => ({
    current: undefined,
    idle: [],
    started: 0,
    reused: 0,
  }));
}

/** What this worker's files got: sandboxes started and reused (for benchmarks and tests of this helper). */
export function workerSandboxFigures(): { started: number; reused: number; idle: number } {
  const state = workerState();
  return { started: state.started - state.reused, reused: state.reused, idle: state.idle.length };
}

/** Ends the current file's work and keeps its sandbox for a later file, if it could end cleanly. */
async function release(state: WorkerState, entry: Entry): Promise<void> {
  if (state.current === entry) state.current = undefined;
  if (KEPT === 0 || !(await entry.reusable.release().catch(() => false))) {
    await entry.reusable.close().catch(() => undefined);
    return;
  }
  state.idle.unshift(entry);
  for (const old of state.idle.splice(KEPT)) await old.reusable.close().catch(() => undefined);
}

/** A sandbox for this test file on a free port, in a worker shared with other sandbox files. */
export async function workerSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const state = workerState();
  // An earlier file did not stop its sandbox (it failed in its setup, say): end its work now.
  if (state.current) await release(state, state.current);
  if (state.started > 0) vi.resetModules();
  state.started += 1;
  const key = sandboxReuseKey({ port: 0, ...options });
  const kept = state.idle.findIndex((entry) => entry.key === key);
  let entry: Entry;
  let sandbox: Sandbox;
  if (kept >= 0) {
    entry = state.idle.splice(kept, 1)[0] as Entry;
    sandbox = await entry.reusable.renew({ port: 0, ...options });
    state.reused += 1;
  } else {
    // Imported here, after the reset: the sandbox and the handlers it loads are this file's own.
    const { startReusableSandbox } = await import('../../local/sandbox.ts');
    entry = { key, reusable: await startReusableSandbox({ port: 0, ...options }) };
    sandbox = entry.reusable.sandbox;
  }
  state.current = entry;
  return {
    ...sandbox,
    async stop() {
      if (state.current === entry) await release(state, entry);
    },
  };
}
