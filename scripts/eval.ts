/**
 * `npm run eval -- [options]` (`--help` lists them: eval/cli-args.ts)
 *
 * Runs eval cases end to end through the sandbox against a model and writes report.json and
 * report.md (docs/evals.md). The model: a recording with --replay; the caller's
 * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL when set; otherwise the offline demo model, which the
 * report labels as such.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { selectCases } from '../eval/cases/index.ts';
import { parseEvalArgs } from '../eval/cli-args.ts';
import { judgeAvailable } from '../eval/graders/judge.ts';
import { readRecording } from '../eval/model-proxy.ts';
import { buildReport, toMarkdown } from '../eval/report.ts';
import { gitCommit, type Job } from '../eval/run-case.ts';
import { runJobs } from '../eval/runner.ts';
import { WORKFLOWS } from '../eval/types.ts';

function fail(message: string): never {
  console.error(`eval: ${message}`);
  process.exit(2);
}

const args = parseEvalArgs(process.argv.slice(2));
if (args.kind === 'help') {
  console.log(args.text);
  process.exit(0);
}
if (args.kind === 'error') fail(args.message);
const { values } = args;

const positive = (name: string, text: string | undefined) => {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) fail(`--${name} must be a positive number, got ${text}`);
  return n;
};

if (values.workflow !== 'all' && !(WORKFLOWS as readonly string[]).includes(values.workflow ?? ''))
  fail(`--workflow must be all or one of ${WORKFLOWS.join(', ')}; got ${values.workflow}`);
if (values.record && values.replay) fail('--record and --replay exclude each other');
if (values.provider !== 'anthropic' && values.provider !== 'bedrock')
  fail(`--provider must be anthropic or bedrock, got ${values.provider}`);
const provider: 'anthropic' | 'bedrock' = values.provider;
const live = Boolean(process.env.ANTHROPIC_API_KEY || process.env.ANTHROPIC_BASE_URL);
const mode = values.replay ? 'replay' : live ? 'live' : 'demo';
if (mode === 'demo' && values.model)
  fail('--model needs a model: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL), or use --replay');
if (values.replay && !existsSync(values.replay)) fail(`no recording folder ${values.replay}`);

const iterations = Math.floor(positive('iterations', values.iterations));
const concurrency = Math.floor(positive('concurrency', values.concurrency));
const timeScale = positive('time-scale', values['time-scale']);
const timeoutMs =
  1000 * positive('timeout', values.timeout ?? (mode === 'demo' || mode === 'replay' ? '240' : '900'));
const cases = selectCases({
  workflow: values.workflow ?? 'all',
  ...(values.cases ? { cases: values.cases } : {}),
});
if (cases.length === 0) fail('no case matches --workflow and --cases');

const fileOf = (id: string, iteration: number) => `${id.replace(/[^A-Za-z0-9_-]+/g, '_')}.${iteration}.jsonl`;
let model =
  mode === 'demo' ? 'offline-demo-model' : (values.model ?? 'the stack default (claude-sonnet-5-5)');
const jobs = cases.flatMap((c) =>
  Array.from({ length: iterations }, (_, i) => {
    const job: Job = {
      caseId: c.id,
      iteration: i + 1,
      model: { kind: mode, provider, ...(values.model ? { id: values.model } : {}) },
      timeoutMs,
      timeScale,
      ...(values.record ? { recordPath: join(values.record, fileOf(c.id, i + 1)) } : {}),
      ...(values.replay ? { replayPath: join(values.replay, fileOf(c.id, i + 1)) } : {}),
    };
    if (job.replayPath && existsSync(job.replayPath)) model = readRecording(job.replayPath).model;
    return { c, job };
  }),
);

const startedAt = new Date();
console.log(
  `eval: ${jobs.length} runs of ${cases.length} cases, model ${model} (${mode}), concurrency ${concurrency}`,
);
const results = await runJobs(jobs, {
  concurrency,
  onResult: (r) =>
    console.log(
      `${r.pass ? 'pass' : 'FAIL'} ${r.id}#${r.iteration} ${(r.endMs / 1000).toFixed(1)} s${r.afterFailureMs === undefined ? '' : ` (${(r.afterFailureMs / 1000).toFixed(1)} s after its execution failed)`} — ${r.reason.slice(0, 200)}`,
    ),
});
const report = buildReport(
  {
    model,
    realModel: mode !== 'demo',
    mode,
    commit: gitCommit(),
    startedAt: startedAt.toISOString(),
    wallMs: Date.now() - startedAt.getTime(),
    iterations,
    concurrency,
    judgeAvailable: judgeAvailable(),
  },
  results,
);
const out = values.out ?? join('eval-results', startedAt.toISOString().replace(/[:.]/g, '-'));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(out, 'report.md'), toMarkdown(report));
for (const w of report.workflows)
  console.log(
    `${w.workflow}: ${w.passed}/${w.runs} passed (${(w.passRate * 100).toFixed(0)}%)${mode === 'demo' ? ' [offline demo model]' : ''}`,
  );
console.log(`eval: report in ${out}/report.md (wall time ${(report.run.wallMs / 1000).toFixed(1)} s)`);
