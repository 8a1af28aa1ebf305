import { type ChildProcess, spawn } from 'node:child_process';

/** What the sandbox's process (process-host.ts) and its process host (process-host-child.ts) say to each other. */

/** Start a command: as `child_process.spawn` would, its input written to stdin and closed. */
export interface StartRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** In a process group of its own (killed as a group). */
  detached: boolean;
  /** Written to its stdin, which is then closed; undefined: no stdin. */
  input?: Uint8Array | string;
}

export type HostRequest = { kind: 'start'; id: number } & StartRequest;

export type HostMessage =
  | { kind: 'started'; id: number; pid: number }
  | { kind: 'output'; id: number; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | { kind: 'ended'; id: number; code: number | null; signal: NodeJS.Signals | null }
  /** It could not start (e.g. ENOENT): neither `started` nor `ended` follows. */
  | { kind: 'failed'; id: number; message: string; code?: string | undefined };

/**
 * Starts one command and reports it as the host does: `started` with its pid, its `output` as
 * it comes, then `ended` once its output is closed, or only `failed` when it could not start.
 */
export function spawnReporting(
  id: number,
  request: StartRequest,
  report: (message: HostMessage) => void,
): ChildProcess | undefined {
  let child: ChildProcess;
  try {
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: request.detached,
      stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    report({
      kind: 'failed',
      id,
      message: (error as Error).message,
      code: (error as NodeJS.ErrnoException).code,
    });
    return undefined;
  }
  let running = false;
  child.once('spawn', () => {
    running = true;
    report({ kind: 'started', id, pid: child.pid ?? 0 });
  });
  child.once('error', (error: NodeJS.ErrnoException) => {
    if (!running) report({ kind: 'failed', id, message: error.message, code: error.code });
  });
  child.stdout?.on('data', (data: Buffer) => report({ kind: 'output', id, stream: 'stdout', data }));
  child.stderr?.on('data', (data: Buffer) => report({ kind: 'output', id, stream: 'stderr', data }));
  child.once('close', (code, signal) => {
    if (running) report({ kind: 'ended', id, code, signal });
  });
  // The command may exit before it read all of its input: how it ended says why.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(request.input === undefined ? undefined : Buffer.from(request.input));
  return child;
}
