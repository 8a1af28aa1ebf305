import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './free-port.ts';

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
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (child.exitCode !== null) break;
      try {
        await fetch(`${endpoint}/moto-api/`);
        return { endpoint, process: child };
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    child.kill();
    throw new Error(`${command} did not start on port ${port}: ${stderr.slice(-500)}`);
  }
  throw new Error(
    'neither moto_server nor `python3 -m moto.server` could be run (pip install "moto[server]")',
  );
}
