import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Directories a process writes for itself alone (a synthesis's cloud assembly, a sandbox's
 * unpacked trees), so repeated runs do not fill the temporary directory. Each lives under one
 * folder per process (`slack-agents-<pid>` in the system's temporary directory) and is removed
 * when its user is done with it; the folder goes when the process exits normally, and the
 * tests' global setup removes the folders of processes that are gone (a test worker the runner
 * ended with a signal never sees its exit: test/support/sweep-scratch.ts). The state lives on `globalThis`: a test worker
 * evaluates this module anew for each file while the process, and its one exit hook, stay.
 */
const SCRATCH = Symbol.for('slack-agent-workflows.scratch-directories');

/** This process's folder, made (with its exit hook) on first use. */
function scratchFolder(): string {
  const holder = globalThis as { [SCRATCH]?: string };
  if (holder[SCRATCH] === undefined) {
    const folder = join(tmpdir(), `slack-agents-${process.pid}`);
    mkdirSync(folder, { recursive: true });
    holder[SCRATCH] = folder;
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  return holder[SCRATCH];
}

/** A new directory of this process's own, removed by `removeScratch` or at exit. */
export function scratchDirectory(prefix: string): string {
  return mkdtempSync(join(scratchFolder(), prefix));
}

/** Removes a directory `scratchDirectory` made (nothing for `undefined`). */
export function removeScratch(directory: string | undefined): void {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
}
