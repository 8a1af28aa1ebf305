import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SHARE_ENV, Worker } from 'node:worker_threads';
import type { FunctionInfo } from './sandbox-resources.ts';

/**
 * The template's functions run in worker threads of this process instead of on its main thread
 * (`SandboxOptions.functionThreads`).
 *
 * Why: on its main thread the sandbox is one core's worth of work for everything at once, the
 * emulators answering (DynamoDB, SQS, Step Functions, Slack, the model) and the handlers calling
 * them (their SDK clients, their HTTP, their own code). Under load, a hundred conversations at
 * once, that thread is the bottleneck while a second core idles. In AWS every invocation has a
 * Lambda instance of its own, and no module state is shared between two functions: worker
 * threads are the closer picture on both counts. The emulators stay on the main thread.
 *
 * Each thread loads a function's handler on its first invocation there, as a Lambda instance
 * does; an invocation goes to the thread with the fewest in flight. The environment is shared
 * with the main thread (the sandbox sets it after the threads may have started). Events and
 * results cross as structured clones, the results after a JSON round trip, as Lambda's do; a
 * handler's error comes back with its name, message and stack, which is what Step Functions'
 * Retry and Catch read.
 */

/** What a thread needs to load and run a function. */
export type ThreadedFunction = Pick<FunctionInfo, 'logicalId' | 'entry' | 'parts' | 'timeoutSeconds'>;

export interface FunctionThreadsOptions {
  /** How many worker threads. */
  count: number;
  /** Modules (file URLs, or paths from the working directory) each thread imports before any handler, e.g. a bench's probes. */
  preload?: readonly string[];
}

export interface InvokeRequest {
  id: number;
  fn: ThreadedFunction;
  event: unknown;
}
export type InvokeReply =
  | { id: number; result: unknown }
  | { id: number; error: { name: string; message: string; stack?: string } };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}
interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** The worker's entry, a TypeScript module loaded through tsx's loader, registered first. */
const WORKER_ENTRY = new URL('./function-thread.ts', import.meta.url).href;

function bootstrap(preload: readonly string[]): string {
  const urls = preload.map((module) =>
    module.startsWith('file:') ? module : pathToFileURL(resolve(module)).href,
  );
  return [
    "import('tsx/esm/api').then(async (tsx) => {",
    '  tsx.register();',
    ...urls.map((url) => `  await import(${JSON.stringify(url)});`),
    `  await import(${JSON.stringify(WORKER_ENTRY)});`,
    '});',
  ].join('\n');
}

/** An error as the handler threw it, for Step Functions and the sandbox's log. */
function errorFrom(reply: { name: string; message: string; stack?: string }): Error {
  const error = new Error(reply.message);
  error.name = reply.name;
  if (reply.stack !== undefined) error.stack = reply.stack;
  return error;
}

export class FunctionThreads {
  private readonly threads: Thread[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: FunctionThreadsOptions) {
    if (!Number.isInteger(options.count) || options.count < 1)
      throw new RangeError(`functionThreads must be a whole number of at least 1, not ${options.count}`);
  }

  /** Runs `fn` with `event` in the least busy thread (a new one while fewer than `count` run). */
  invoke(fn: ThreadedFunction, event: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the sandbox stopped: no function runs any more'));
    const thread = this.pick();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, fn, event } satisfies InvokeRequest);
    });
  }

  /** Ends every thread: the handlers they loaded are gone, the next invocation starts afresh. */
  async restart(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => this.end(thread, 'the sandbox restarted its functions')));
  }

  /** Ends every thread for good. */
  async close(): Promise<void> {
    this.closed = true;
    await this.restart();
  }

  private pick(): Thread {
    const idle = this.threads.find((thread) => thread.pending.size === 0);
    if (idle) return idle;
    if (this.threads.length < this.options.count) return this.start();
    return this.threads.reduce((least, thread) =>
      thread.pending.size < least.pending.size ? thread : least,
    );
  }

  private start(): Thread {
    const worker = new Worker(bootstrap(this.options.preload ?? []), { eval: true, env: SHARE_ENV });
    const thread: Thread = { worker, pending: new Map() };
    worker.on('message', (reply: InvokeReply) => {
      const pending = thread.pending.get(reply.id);
      if (!pending) return;
      thread.pending.delete(reply.id);
      if ('error' in reply) pending.reject(errorFrom(reply.error));
      else pending.resolve(reply.result);
    });
    // A thread that died (an uncaught error in a handler's background work) fails what it ran
    // and is replaced on the next invocation, as Lambda replaces a crashed instance.
    const lost = (error: Error) => {
      const at = this.threads.indexOf(thread);
      if (at >= 0) this.threads.splice(at, 1);
      for (const pending of thread.pending.values()) pending.reject(error);
      thread.pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`a function thread exited (code ${code})`)));
    this.threads.push(thread);
    return thread;
  }

  private async end(thread: Thread, why: string): Promise<void> {
    for (const pending of thread.pending.values()) pending.reject(new Error(why));
    thread.pending.clear();
    await thread.worker.terminate();
  }
}
