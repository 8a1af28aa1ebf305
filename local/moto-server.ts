import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './free-port.ts';
import { processCpuTicks } from './process-cpu.ts';

/** How long moto may go without using any CPU before it counts as stuck rather than slow. */
const STALL_MS = 20_000;

/**
 * Python moto's `moto_server` on a free local port: a second, independent implementation of
 * AWS APIs that each emulator's `check-against-moto.ts` compares it with.
 */

export async function startMoto(): Promise<{ endpoint: string; process: ChildProcess }> {
  const port = await freePort();
  const candidates: Array<[string, string[]]> = [
    ['moto_server', ['-H', '127.0.0.1', '-p', String(port)]],
    ['python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)]],
  ];
  for (const [command, args] of candidates) {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const spawned = await new Promise<boolean>((resolve) => {
      child.once('spawn', () => resolve(true));
      child.once('error', () => resolve(false));
    });
    if (!spawned) continue;
    const endpoint = `http://127.0.0.1:${port}`;
    // moto imports a great deal of Python before it listens: on a busy machine that takes
    // long, but it keeps using CPU. It fails when it exits, or uses none for STALL_MS.
    let ticks = processCpuTicks(child.pid);
    let progressAt = Date.now();
    while (child.exitCode === null && Date.now() - progressAt < STALL_MS) {
      try {
        await fetch(`${endpoint}/moto-api/`);
        return { endpoint, process: child };
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const now = processCpuTicks(child.pid);
      if (now !== ticks) {
        ticks = now;
        progressAt = Date.now();
      }
    }
    child.kill();
    const why = child.exitCode === null ? `used no CPU for ${STALL_MS / 1000} s` : `exited ${child.exitCode}`;
    throw new Error(`${command} did not start on port ${port} (${why}): ${stderr.slice(-500)}`);
  }
  throw new Error(
    'neither moto_server nor `python3 -m moto.server` could be run (pip install "moto[server]")',
  );
}
