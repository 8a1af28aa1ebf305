import { Worker } from 'node:worker_threads';
import { SearchTimeoutError, SearchWorkerError } from './errors.ts';

/**
 * Regular expression search off the main thread, with a hard time limit.
 *
 * JavaScript's regular expressions backtrack, and no linear-time engine (RE2) is installed, so a
 * pattern such as `(a+)+$` on a long line can run for longer than the Lambda lives. The search
 * therefore runs in a worker thread; when it passes its time limit the worker is terminated
 * (V8 interrupts a running regular expression), the caller gets `SearchTimeoutError`, and the
 * next search starts a fresh worker. A warm Lambda keeps one idle worker between searches, so
 * only the first search (and the one after a kill) pays the worker's start-up.
 *
 * The worker's code is a string (`eval: true`) so the handler bundles into one file.
 */

export interface RegexJob {
  pattern: string;
  flags: string;
  /**
   * Absolute paths of the files to search, in the order results should come. Files whose
   * first 8 KiB hold a NUL byte are binary and skipped, and so are files that are not UTF-8, as `decodeText` decides in text.ts.
   */
  files: string[];
  /** Stop after this many matching lines. */
  maxMatches: number;
}

export interface RegexHits {
  /** `[file index, 0-based line index]` of each matching line, in file then line order. */
  hits: Array<[number, number]>;
  /** Whether the search stopped at `maxMatches` before the last file. */
  truncated: boolean;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const decoder = new TextDecoder('utf-8', { fatal: true });
parentPort.on('message', (job) => {
  try {
    const re = new RegExp(job.pattern, job.flags);
    const hits = [];
    let truncated = false;
    outer: for (let f = 0; f < job.files.length; f++) {
      let buffer;
      try { buffer = readFileSync(job.files[f]); } catch { continue; }
      if (buffer.subarray(0, 8192).includes(0)) continue;
      let text;
      try { text = decoder.decode(buffer); } catch { continue; }
      const lines = text.split('\\n');
      for (let l = 0; l < lines.length; l++) {
        re.lastIndex = 0;
        if (re.test(lines[l])) {
          if (hits.length === job.maxMatches) { truncated = true; break outer; }
          hits.push([f, l]);
        }
      }
    }
    parentPort.postMessage({ ok: true, hits, truncated });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message || error) });
  }
});
`;

type WorkerReply =
  | { ok: true; hits: Array<[number, number]>; truncated: boolean }
  | { ok: false; message: string };

let idle: Worker | undefined;

/** Runs `job` in the worker; throws `SearchTimeoutError` (and kills the worker) past `timeLimitMs`. */
export async function runRegexJob(job: RegexJob, timeLimitMs: number): Promise<RegexHits> {
  const worker = idle ?? new Worker(WORKER_SOURCE, { eval: true });
  idle = undefined;
  // An idle worker must not keep a test process (or a sandbox) alive.
  worker.unref();
  return new Promise<RegexHits>((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
    };
    const timer = setTimeout(() => {
      cleanup();
      void worker.terminate();
      reject(new SearchTimeoutError(job.pattern, timeLimitMs));
    }, timeLimitMs);
    const onMessage = (reply: WorkerReply) => {
      cleanup();
      idle ??= worker;
      if (idle !== worker) void worker.terminate();
      if (reply.ok) resolve({ hits: reply.hits, truncated: reply.truncated });
      else reject(new SearchWorkerError(`the search worker failed: ${reply.message}`));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(job);
  });
}
