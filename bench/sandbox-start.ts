/**
 * `npm run dev`'s start and idle memory: starts `local/main.ts` in a fresh
 * Node process (as `tsx` runs it), times it from spawn to "Sandbox listening", lets it idle,
 * and reads its resident memory (VmRSS). Runs RUNS starts in a row, so the first
 * shows a cold template cache and the next ones a warm one (`.sandbox/template-cache/`; set
 * `COLD=1` to empty it before every run). Prints figures; asserts nothing.
 * Run: `npm run bench:sandbox-start`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../local/free-port.ts';
import { SANDBOX_NODE_FLAGS } from '../local/node-flags.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 10);
const CACHE_DIR = join(process.cwd(), '.sandbox', 'template-cache');

function memoryOf(pid: number): { rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return { rssMiB: kb / 1024 };
}

async function startOnce(): Promise<{ startMs: number; rssMiB: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...SANDBOX_NODE_FLAGS, '--import', 'tsx', 'local/main.ts'], {
    env: { ...process.env, PORT: String(port), SANDBOX_LOG_LEVEL: 'WARN', NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    const startMs = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Sandbox listening')) resolve(performance.now() - started);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.once('exit', (code) =>
        reject(new Error(`the sandbox exited (${code}) before listening:\n${output}`)),
      );
    });
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    return { startMs, ...memoryOf(child.pid ?? 0) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

console.log(`sandbox start (spawn -> "Sandbox listening") and memory after ${IDLE_SECONDS} s idle`);
console.log('| run | template cache | start | RSS |');
console.log('|---|---|---|---|');
for (let run = 1; run <= RUNS; run++) {
  const cold = process.env.COLD === '1' || run === 1;
  if (cold) rmSync(CACHE_DIR, { recursive: true, force: true });
  const result = await startOnce();
  console.log(
    `| ${run} | ${cold ? 'cold' : 'warm'} | ${(result.startMs / 1000).toFixed(2)} s | ${result.rssMiB.toFixed(0)} MiB |`,
  );
}
