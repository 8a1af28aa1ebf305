import { JUDGE_MODEL, JUDGE_PROMPT } from './graders/judge.ts';
import type { CaseResult, Workflow } from './types.ts';

/**
 * The run's report: per case the verdict and its reason, per workflow the pass rate, cost,
 * latency (p50/p95 to the first useful answer and to the end), tool calls and tokens; the
 * model, the commit, and the judge's model and prompt. JSON for machines, Markdown for people.
 */

export interface RunInfo {
  model: string;
  /** Whether the answers came from a real model: false for the offline demo model. */
  realModel: boolean;
  mode: 'demo' | 'live' | 'replay';
  commit: string;
  startedAt: string;
  wallMs: number;
  iterations: number;
  concurrency: number;
  judge: { available: boolean; model: string; prompt: string };
}

export interface WorkflowSummary {
  workflow: Workflow;
  cases: number;
  runs: number;
  passed: number;
  passRate: number;
  costUsd: number | null;
  costPerRunUsd: number | null;
  firstAnswerMs: { p50: number | null; p95: number | null };
  endMs: { p50: number | null; p95: number | null };
  toolCalls: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  overheadMs: { p50: number | null };
}

export interface Report {
  run: RunInfo;
  workflows: WorkflowSummary[];
  cases: CaseResult[];
}

/** The nearest-rank percentile of `values` (null when empty). */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

export function summarize(results: readonly CaseResult[]): WorkflowSummary[] {
  const byWorkflow = new Map<Workflow, CaseResult[]>();
  for (const r of results) byWorkflow.set(r.workflow, [...(byWorkflow.get(r.workflow) ?? []), r]);
  return [...byWorkflow].map(([workflow, rs]) => {
    const costs = rs.map((r) => r.costUsd).filter((c): c is number => c !== undefined);
    const cost = costs.length ? costs.reduce((a, b) => a + b, 0) : null;
    const first = rs.map((r) => r.firstAnswerMs).filter((v): v is number => v !== undefined);
    const sum = (f: (r: CaseResult) => number) => rs.reduce((a, r) => a + f(r), 0);
    const passed = rs.filter((r) => r.pass).length;
    return {
      workflow,
      cases: new Set(rs.map((r) => r.id)).size,
      runs: rs.length,
      passed,
      passRate: rs.length ? passed / rs.length : 0,
      costUsd: cost,
      costPerRunUsd: cost === null ? null : cost / rs.length,
      firstAnswerMs: { p50: percentile(first, 50), p95: percentile(first, 95) },
      endMs: {
        p50: percentile(
          rs.map((r) => r.endMs),
          50,
        ),
        p95: percentile(
          rs.map((r) => r.endMs),
          95,
        ),
      },
      toolCalls: sum((r) => r.usage.toolCalls),
      modelCalls: sum((r) => r.usage.modelCalls),
      inputTokens: sum((r) => r.usage.inputTokens),
      outputTokens: sum((r) => r.usage.outputTokens),
      overheadMs: {
        p50: percentile(
          rs.map((r) => r.overheadMs.setup + r.overheadMs.grading),
          50,
        ),
      },
    };
  });
}

export function buildReport(
  run: Omit<RunInfo, 'judge'> & { judgeAvailable: boolean },
  results: CaseResult[],
): Report {
  const { judgeAvailable, ...info } = run;
  return {
    run: { ...info, judge: { available: judgeAvailable, model: JUDGE_MODEL, prompt: JUDGE_PROMPT } },
    workflows: summarize(results),
    cases: results,
  };
}

const s = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);
const usd = (v: number | null) => (v === null ? '–' : `$${v.toFixed(4)}`);
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 240);

export function toMarkdown(report: Report): string {
  const { run } = report;
  const lines = [
    '# Eval report',
    '',
    run.realModel
      ? `Model: **${run.model}** (${run.mode === 'replay' ? 'replayed from a recording' : 'live'})`
      : `Model: **${run.model}**. These figures are the OFFLINE DEMO MODEL's: a rule-based stand-in that proves the harness and the graders; they say nothing about any real model.`,
    `Commit: \`${run.commit}\` · started ${run.startedAt} · wall time ${s(run.wallMs)} · iterations ${run.iterations} · concurrency ${run.concurrency}`,
    `Judge: ${run.judge.available ? `${run.judge.model}` : 'not available (no key): judged checks were not run'}`,
    ...(run.realModel
      ? []
      : [
          run.mode === 'demo'
            ? 'Cost: the offline demo model is priced at $0, as the sandbox and its console price it; its tokens are counted.'
            : "Cost: a replay prices the recorded tokens at the configured model's list price; it is no model's cost.",
        ]),
    '',
    '## Workflows',
    '',
    '| workflow | runs | passed | pass rate | cost | cost/run | first answer p50 / p95 | end p50 / p95 | tool calls | model calls | tokens in / out | harness overhead p50 |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...report.workflows.map(
      (w) =>
        `| ${w.workflow} | ${w.runs} | ${w.passed} | ${(w.passRate * 100).toFixed(0)}% | ${usd(w.costUsd)} | ${usd(w.costPerRunUsd)} | ${s(w.firstAnswerMs.p50)} / ${s(w.firstAnswerMs.p95)} | ${s(w.endMs.p50)} / ${s(w.endMs.p95)} | ${w.toolCalls} | ${w.modelCalls} | ${w.inputTokens} / ${w.outputTokens} | ${s(w.overheadMs.p50)} |`,
    ),
    '',
    '## Cases',
    '',
    '| case | iteration | result | reason | first answer | end | after its execution failed | tool calls | cost |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.cases.map(
      (c) =>
        `| ${c.id} | ${c.iteration} | ${c.pass ? 'pass' : 'FAIL'} | ${cell(c.reason)} | ${s(c.firstAnswerMs ?? null)} | ${s(c.endMs)} | ${s(c.afterFailureMs ?? null)} | ${c.usage.toolCalls} | ${usd(c.costUsd ?? null)} |`,
    ),
    '',
    '## Judge prompt',
    '',
    '```',
    run.judge.prompt,
    '```',
    '',
  ];
  return lines.join('\n');
}
