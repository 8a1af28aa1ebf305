import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A sandbox of one release, run as its own process from that release's checkout
 * (`local/main.ts --state <dir>` under tsx, what `npm run dev -- --state <dir>` runs after building
 * the console, which the rehearsal does not need). It listens on `port`; `stop()` sends SIGINT,
 * as Ctrl-C does, and waits for the process to save its state and exit.
 */

export class SandboxProcessError extends Error {
  override readonly name = 'SandboxProcessError';
}

export interface SandboxProcess {
  readonly url: string;
  /** The last lines it wrote (for a failure's message). */
  output(): string;
  stop(): Promise<void>;
}

/** How long a start may go without a line of output before it counts as stuck. */
const START_STALL_MS = 300_000;

export async function startSandboxProcess(options: {
  dir: string;
  stateDir: string;
  port: number;
  env: Record<string, string>;
  /** A release without `--state` says so here (the old release must have it). */
  label: string;
}): Promise<SandboxProcess> {
  const url = `http://127.0.0.1:${options.port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    // tsx as a loader of this process (not its CLI, a parent that relays signals): SIGINT
    // reaches the sandbox itself, which saves its state and exits 0.
    [
      '--import',
      pathToFileURL(join(options.dir, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href,
      'local/main.ts',
      '--state',
      options.stateDir,
    ],
    {
      cwd: options.dir,
      env: { ...process.env, ...options.env, PORT: String(options.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let tail = '';
  let lastOutput = Date.now();
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8_000);
    lastOutput = Date.now();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  for (;;) {
    if (exitCode !== undefined) {
      throw new SandboxProcessError(
        `the ${options.label} sandbox exited (${exitCode}) while starting:\n${tail}`,
      );
    }
    if (Date.now() - lastOutput > START_STALL_MS) {
      child.kill('SIGKILL');
      throw new SandboxProcessError(
        `the ${options.label} sandbox printed nothing for 5 minutes while starting:\n${tail}`,
      );
    }
    const healthy = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy && tail.includes('Sandbox listening')) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return {
    url,
    output: () => tail,
    async stop() {
      if (exitCode !== undefined) return;
      child.kill('SIGINT');
      const code = await exited;
      if (code !== 0)
        throw new SandboxProcessError(`the ${options.label} sandbox exited ${code} on stop:\n${tail}`);
    },
  };
}
