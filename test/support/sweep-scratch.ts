import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The scratch folders of processes that are gone (infra/scratch.ts keeps one folder per process,
 * `slack-agents-<pid>` in the system's temporary directory, removed at a normal exit). A test
 * worker the runner ends with a signal never sees its exit, so the global setup sweeps them.
 */
const FOLDER = /^slack-agents-(\d+)$/;

/** Removes the scratch folders of processes that no longer run; returns how many. */
export function sweepScratch(root: string = tmpdir()): number {
  let swept = 0;
  for (const name of readdirSync(root)) {
    const pid = Number(FOLDER.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
    swept += 1;
  }
  return swept;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user holds the id; only ESRCH says nobody does.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
