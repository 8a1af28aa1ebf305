import { execFileSync } from 'node:child_process';
import { type EvalCase, findCase } from './cases/index.ts';
import type { DriverRun } from './drivers/driver.ts';
import { failedAt } from './drivers/faults.ts';
import { configFor, runDriver } from './drivers/index.ts';
import { readRecording } from './model-proxy.ts';
import { type ModelChoice, startSession } from './session.ts';
import { type CaseResult, type Verdict, verdictOf } from './types.ts';

/** One case to run, as the runner hands it to a worker process. */
export interface Job {
  caseId: string;
  iteration: number;
  model: { kind: 'demo' | 'live' | 'replay'; id?: string; provider?: 'anthropic' | 'bedrock' };
  /** Where to save this case's model and judge exchanges (live and demo runs). */
  recordPath?: string;
  /** The recording to answer from (replay runs). */
  replayPath?: string;
  timeoutMs: number;
  timeScale: number;
}

/** The commit under evaluation: EVAL_COMMIT when set (a run from an exported copy), else git's HEAD. */
export function gitCommit(): string {
  if (process.env.EVAL_COMMIT) return process.env.EVAL_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * A failed verdict with the model's own failure first, when the model answered no call at all
 * (unreachable, a rejected key): the cause of what the checks saw, named once.
 */
function modelFailures(verdict: Verdict, failures: readonly string[], answered: number): Verdict {
  if (verdict.pass || failures.length === 0 || answered > 0 || verdict.checks[0]?.name === 'execution')
    return verdict;
  const detail = `${failures.length} model call${failures.length === 1 ? '' : 's'} failed; the last: ${failures.at(-1)}`;
  return verdictOf([{ name: 'model', pass: false, detail }, ...verdict.checks]);
}

/** Runs one case in this process: sandbox up, drive, grade, sandbox down. Never throws. */
export async function runCase(job: Job): Promise<CaseResult> {
  const c: EvalCase = findCase(job.caseId);
  const base = { id: c.id, workflow: c.workflow, title: c.title, iteration: job.iteration };
  const setupStart = Date.now();
  let model: ModelChoice = {
    kind: job.model.kind,
    ...(job.model.id ? { id: job.model.id } : {}),
    ...(job.model.provider ? { provider: job.model.provider } : {}),
  };
  if (job.model.kind === 'replay') {
    if (!job.replayPath) throw new Error('a replay job needs replayPath');
    model = { ...model, recording: readRecording(job.replayPath) };
  }
  let session: Awaited<ReturnType<typeof startSession>> | undefined;
  let run: DriverRun | undefined;
  let error: string | undefined;
  let setupMs = 0;
  let afterFailureMs: number | undefined;
  try {
    session = await startSession({ config: configFor(c), model, timeScale: job.timeScale });
    setupMs = Date.now() - setupStart;
    run = await runDriver(session, c, Date.now() + job.timeoutMs);
    // For a failed case, how soon it ended after its execution failed (its driver stopped
    // waiting before it graded).
    const failed = run.verdict.pass ? undefined : failedAt(session, run.conversationIds);
    if (failed !== undefined) afterFailureMs = Math.max(0, Date.now() - run.gradingMs - failed);
  } catch (e) {
    error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (!setupMs) setupMs = Date.now() - setupStart;
  }
  let costMicroUsd: number | undefined = run?.costMicroUsd;
  const usage = session?.proxy.usage();
  try {
    for (const id of run?.conversationIds ?? []) {
      const ledger = (await session?.store.getConversation(id, { consistent: true }))?.ledger;
      if (ledger) costMicroUsd = (costMicroUsd ?? 0) + ledger.costMicroUsd;
    }
    if (session && job.recordPath && job.model.kind !== 'replay')
      session.proxy.save(
        job.recordPath,
        job.model.kind === 'demo' ? 'offline-demo-model' : (job.model.id ?? 'configured default'),
      );
    if (session?.proxy.misses.length)
      error = `${error ? `${error}; ` : ''}replay had no recorded answer for ${session.proxy.misses.join(', ')}`;
  } finally {
    await session?.stop().catch(() => undefined);
  }
  const verdict =
    run?.verdict && modelFailures(run.verdict, session?.proxy.failures ?? [], usage?.modelCalls ?? 0);
  return {
    ...base,
    pass: verdict?.pass === true && error === undefined,
    reason: error ?? verdict?.reason ?? 'no verdict',
    checks: verdict?.checks ?? [],
    ...(error ? { error } : {}),
    ...(run?.firstAnswerMs !== undefined ? { firstAnswerMs: run.firstAnswerMs } : {}),
    endMs: run?.endMs ?? 0,
    ...(afterFailureMs !== undefined ? { afterFailureMs } : {}),
    usage: usage ?? {
      modelCalls: 0,
      toolCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    },
    ...(costMicroUsd !== undefined ? { costUsd: costMicroUsd / 1e6 } : {}),
    overheadMs: { setup: setupMs, grading: run?.gradingMs ?? 0 },
  };
}
