import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_NODE_FLAGS } from '../local/node-flags.ts';
import type { EvalCase } from './cases/index.ts';
import type { Job } from './run-case.ts';
import { type CaseResult, NO_USAGE } from './types.ts';

/**
 * Runs jobs in worker processes (eval/worker.ts), at most `concurrency` at once. A worker that
 * crashes, hangs past its limit or writes no result makes its case fail with that reason; the
 * run goes on.
 */

export interface RunOptions {
  concurrency: number;
  /** Extra time a worker gets beyond its case's limit (sandbox start and stop, grading). */
  graceMs?: number;
  onResult?: (result: CaseResult) => void;
  /** Environment of the workers. @default process.env */
  env?: NodeJS.ProcessEnv;
}

function crashed(c: EvalCase, job: Job, reason: string, ms: number): CaseResult {
  return {
    id: c.id,
    workflow: c.workflow,
    title: c.title,
    iteration: job.iteration,
    pass: false,
    reason,
    checks: [],
    error: reason,
    endMs: ms,
    usage: { ...NO_USAGE },
    overheadMs: { setup: 0, grading: 0 },
  };
}

async function runWorker(
  c: EvalCase,
  job: Job,
  graceMs: number,
  env: NodeJS.ProcessEnv,
): Promise<CaseResult> {
  const dir = await mkdtemp(join(tmpdir(), 'eval-worker-'));
  const resultPath = join(dir, 'result.json');
  const started = Date.now();
  try {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [...SANDBOX_NODE_FLAGS, '--import', 'tsx', 'eval/worker.ts', JSON.stringify(job), resultPath],
        {
          env: { ...env, NODE_OPTIONS: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-2000);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const timer = setTimeout(() => child.kill('SIGKILL'), job.timeoutMs + graceMs);
      child.on('close', (exit) => {
        clearTimeout(timer);
        resolve({ code: exit, output });
      });
    });
    try {
      return JSON.parse(await readFile(resultPath, 'utf8')) as CaseResult;
    } catch {
      const why = code === null ? 'the worker was killed (over its time limit)' : `the worker exited ${code}`;
      return crashed(
        c,
        job,
        `${why} without a result: ${output.trim().split('\n').slice(-3).join(' | ')}`,
        Date.now() - started,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runJobs(
  jobs: readonly { c: EvalCase; job: Job }[],
  options: RunOptions,
): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    for (;;) {
      const at = next++;
      const item = jobs[at];
      if (!item) return;
      const result = await runWorker(
        item.c,
        item.job,
        options.graceMs ?? 120_000,
        options.env ?? process.env,
      ).catch((error: unknown) =>
        crashed(item.c, item.job, `the harness could not run the case: ${String(error)}`, 0),
      );
      results[at] = result;
      options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, lane));
  return results;
}
