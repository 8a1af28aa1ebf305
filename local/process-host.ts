import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { keptInProcess } from '../lambdas/shared/kept.ts';
import {
  type HostMessage,
  type HostRequest,
  type StartRequest,
  spawnReporting,
} from './process-host-protocol.ts';

/**
 * Starts the sandbox's commands (git for the GitHub emulator, every command of a CodeBuild build)
 * from a small process of their own instead of from the sandbox's process.
 *
 * Why: starting a process forks the one that starts it. After a fork, the first write to each
 * page of the forking process's memory is a copy-on-write fault, and the sandbox's process (or a
 * test worker running it) holds hundreds of megabytes that its garbage collector keeps writing.
 * On these machines a spawn from a 100 MB heap made the next pass over that memory cost about
 * 0.75 s of CPU instead of 2 ms (`npm run bench:spawn`). The host is a plain Node process that
 * holds next to nothing, so its forks cost what a fork should; the sandbox's process forks once,
 * to start it.
 *
 * `SANDBOX_PROCESS_HOST=off` starts every command directly, as before (to compare the two).
 */

export interface ProcessOptions {
  /** @default process.cwd() */
  cwd?: string;
  /** The whole environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** In a process group of its own; `kill` then signals the group. @default false */
  detached?: boolean;
  /** Written to its stdin, which is then closed. @default no stdin */
  input?: Buffer | string;
  /** Its output as it comes; when given, `ended` carries no output. */
  onOutput?: (data: Buffer, stream: 'stdout' | 'stderr') => void;
}

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** A command that could not be started (no such file, no permission). */
class ProcessStartError extends Error {
  override readonly name = 'ProcessStartError';
  constructor(
    readonly file: string,
    message: string,
    readonly code?: string,
  ) {
    super(`could not start ${file}: ${message}`);
  }
}

/** A command that ended other than with exit status 0 (`runProcess`). */
export class ProcessFailedError extends Error {
  override readonly name = 'ProcessFailedError';
  constructor(
    readonly command: readonly string[],
    readonly end: ProcessEnd,
  ) {
    const how = end.signal ? `was killed by ${end.signal}` : `exited ${end.code}`;
    super(`${command.join(' ')} ${how}: ${end.stderr.toString('utf8').trim()}`);
  }
  get stderr(): string {
    return this.end.stderr.toString('utf8');
  }
}

export interface HostedProcess {
  /** Its pid once it runs; rejects with ProcessStartError when it could not start. */
  readonly pid: Promise<number>;
  /** How it ended; rejects with ProcessStartError when it could not start. */
  readonly ended: Promise<ProcessEnd>;
  /** Signals it (its process group when detached); nothing once it ended. */
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `file` with `args` from the process host (or directly, see above). */
export function startProcess(
  file: string,
  args: readonly string[],
  options: ProcessOptions = {},
): HostedProcess {
  const request = {
    file,
    args,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    detached: options.detached ?? false,
    ...(options.input === undefined ? {} : { input: options.input }),
  };
  const tracker = new Tracker(file, request.detached, options.onOutput);
  if (process.env.SANDBOX_PROCESS_HOST === 'off')
    spawnReporting(0, request, (message) => deliver(tracker, message));
  else host().start(request, tracker);
  return tracker.process;
}

/** Runs a command to its end; its output, or ProcessFailedError when it did not exit 0. */
export async function runProcess(
  file: string,
  args: readonly string[],
  options: Omit<ProcessOptions, 'onOutput'> = {},
): Promise<{ stdout: string; stderr: string }> {
  const end = await startProcess(file, args, options).ended;
  if (end.code !== 0) throw new ProcessFailedError([file, ...args], end);
  return { stdout: end.stdout.toString('utf8'), stderr: end.stderr.toString('utf8') };
}

/** One command's promises, settled from what the host (or the direct child) reports. */
class Tracker {
  readonly process: HostedProcess;
  private readonly out: Buffer[] = [];
  private readonly err: Buffer[] = [];
  private pidValue: number | undefined;
  private done = false;
  private pendingSignal: NodeJS.Signals | undefined;
  private settle!: { started(pid: number): void; ended(end: ProcessEnd): void; failed(error: Error): void };

  constructor(
    private readonly file: string,
    private readonly detached: boolean,
    private readonly onOutput: ProcessOptions['onOutput'],
  ) {
    let started!: (pid: number) => void;
    let notStarted!: (error: Error) => void;
    let ended!: (end: ProcessEnd) => void;
    let notEnded!: (error: Error) => void;
    const pid = new Promise<number>((resolve, reject) => {
      started = resolve;
      notStarted = reject;
    });
    const end = new Promise<ProcessEnd>((resolve, reject) => {
      ended = resolve;
      notEnded = reject;
    });
    // Callers may await only one of the two.
    pid.catch(() => undefined);
    end.catch(() => undefined);
    this.settle = {
      started,
      ended,
      failed: (error) => {
        notStarted(error);
        notEnded(error);
      },
    };
    this.process = { pid, ended: end, kill: (signal = 'SIGTERM') => this.kill(signal) };
  }

  started(pid: number): void {
    this.pidValue = pid;
    this.settle.started(pid);
    if (this.pendingSignal) this.kill(this.pendingSignal);
  }

  output(data: Buffer, stream: 'stdout' | 'stderr'): void {
    if (this.onOutput) this.onOutput(data, stream);
    else (stream === 'stdout' ? this.out : this.err).push(data);
  }

  ended(code: number | null, signal: NodeJS.Signals | null): void {
    this.done = true;
    this.settle.ended({ code, signal, stdout: Buffer.concat(this.out), stderr: Buffer.concat(this.err) });
  }

  failed(message: string, code?: string): void {
    this.done = true;
    this.settle.failed(new ProcessStartError(this.file, message, code));
  }

  private kill(signal: NodeJS.Signals): void {
    if (this.done) return;
    if (this.pidValue === undefined) {
      this.pendingSignal = signal;
      return;
    }
    try {
      process.kill(this.detached ? -this.pidValue : this.pidValue, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Hands one of the host's reports to the tracker of its command; whether the command is over. */
function deliver(tracker: Tracker, message: HostMessage): boolean {
  switch (message.kind) {
    case 'started':
      tracker.started(message.pid);
      return false;
    case 'output':
      tracker.output(
        Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength),
        message.stream,
      );
      return false;
    case 'ended':
      tracker.ended(message.code, message.signal);
      return true;
    case 'failed':
      tracker.failed(message.message, message.code);
      return true;
  }
}

/** The process host, started on first use and kept while this process lives. */
class ProcessHost {
  private readonly trackers = new Map<number, Tracker>();
  private nextId = 1;

  constructor(private readonly child: ChildProcess) {
    child.on('message', (message: HostMessage) => {
      const tracker = this.trackers.get(message.id);
      if (tracker === undefined || !deliver(tracker, message)) return;
      this.trackers.delete(message.id);
      if (this.trackers.size === 0) this.child.channel?.unref();
    });
    child.once('exit', (code, signal) => {
      if (kept.host === this) kept.host = undefined;
      for (const tracker of this.trackers.values())
        tracker.failed(`the process host ended (${signal ?? code}) before the command did`);
      this.trackers.clear();
    });
    // Neither the host nor its channel keeps this process alive while no command runs.
    child.unref();
    child.channel?.unref();
  }

  start(request: StartRequest, tracker: Tracker): void {
    const id = this.nextId++;
    this.trackers.set(id, tracker);
    if (this.trackers.size === 1) this.child.channel?.ref();
    this.child.send({ kind: 'start', id, ...request } satisfies HostRequest);
  }
}

/**
 * The process's one host. Kept on the process, not in this module: a test worker evaluates this
 * module again for each file (a module reset), and a host per evaluation would leave one idle
 * process behind per file, each started through tsx's loader (about 0.2 s of CPU). A host made by
 * an earlier evaluation serves the later ones: it only calls the tracker's methods.
 */
const kept = keptInProcess<{ host: ProcessHost | undefined }>('local.process-host', () => ({
  host: undefined,
}));

function host(): ProcessHost {
  kept.host ??= new ProcessHost(
    fork(join(import.meta.dirname, 'process-host-child.ts'), [], {
      cwd: join(import.meta.dirname, '..'),
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, NODE_OPTIONS: '' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  return kept.host;
}
