import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

/**
 * `TEST_CPU_LOG=<file>`: each test file's CPU, appended to the file as one JSON line when the
 * file ends, to find where a run's time goes (docs/testing.md, "Where the suite's time goes").
 * `workerMs` is the worker process's own CPU (user and system) from the file's first hook to its
 * last, the file's imports not included; `childrenMs` the CPU of the child processes the worker
 * waited for meanwhile (Linux's /proc, 0 elsewhere). What other processes do for the file (the
 * sandbox's process host, a synthesis server) is in neither. `startedAt` (epoch ms) and the
 * worker's `pid` place the file on the run's timeline, worker by worker.
 */
export function logFileCpu(path: string): void {
  let file = '';
  let worker = process.cpuUsage();
  let children = childrenCpuMs();
  let started = Date.now();
  beforeAll(() => {
    // The file this worker runs now (vitest's worker state; the hook itself is not given it).
    file = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath ?? '';
    worker = process.cpuUsage();
    children = childrenCpuMs();
    started = Date.now();
  });
  afterAll(() => {
    const used = process.cpuUsage(worker);
    const line = {
      file,
      workerMs: Math.round((used.user + used.system) / 1000),
      childrenMs: childrenCpuMs() - children,
      wallMs: Date.now() - started,
      startedAt: started,
      pid: process.pid,
    };
    appendFileSync(path, `${JSON.stringify(line)}\n`);
  });
}

/** CPU milliseconds of this process's children that ended and were waited for (cutime + cstime). */
function childrenCpuMs(): number {
  try {
    // Fields after the command's closing parenthesis: cutime and cstime are the 16th and 17th of
    // the line, in clock ticks of 10 ms (USER_HZ, 100 on Linux).
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}
