/**
 * Telemetry tools benchmark: latency of query_logs (FilterLogEvents plus the log analysis, and
 * a Logs Insights stats query) and query_metrics over the demo incident (3 hours of three
 * services, 7,624 log lines with seed 3), each call through the real SDK clients against the
 * sandbox's emulators on localhost and with the evidence ledger in dynalite. Prints figures;
 * it is not a test and asserts nothing. Run: `npm run bench:telemetry`.
 *
 * In AWS, CloudWatch's own latency comes on top: FilterLogEvents pages and Insights queries
 * take hundreds of milliseconds to seconds there, per page or query.
 *
 * Each call's output then passes the redaction layer as an agent turn's tool call does
 * (lambdas/agents/tool-calls.ts); its time is printed beside the call's, with the share it adds.
 *
 * The last case is a 100,000-line window: session-cache's log group gets 100,000 lines over the
 * last 10 minutes (the Loghub 2k samples one after another, read in place from
 * `<repo>/../shared/data/loghub/` or `$LOGHUB_DIR`, or numbered request lines without them),
 * of which query_logs reads its configured `maxEvents`, the latest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redactor } from '../lambdas/redaction/index.ts';
import { loghubDir, loghubPresent, SYSTEMS } from '../test/log-analysis/loghub.ts';
import { NOW, startTelemetryHarness } from '../test/tools/telemetry-harness.ts';

const RUNS = 15;
const WINDOW_LINES = 100_000;
const WINDOW_MINUTES = 10;

const CASES: [string, string, Record<string, unknown>][] = [
  [
    'query_logs, payment-api, 60 min, all events (over the cap: the latest part analyzed)',
    'query_logs',
    { service: 'payment-api', lastMinutes: 60 },
  ],
  [
    'query_logs, payment-api, 6 h, "timed out" (~700 events)',
    'query_logs',
    { service: 'payment-api', filterPattern: '"timed out"', lastMinutes: 360 },
  ],
  ['query_logs, checkout, 30 min, all events', 'query_logs', { service: 'checkout', lastMinutes: 30 }],
  [
    'query_logs, checkout, Insights errors by 5 min bin over 3 h',
    'query_logs',
    {
      service: 'checkout',
      insightsQuery: 'filter level = "error" | stats count(*) by bin(5m)',
      lastMinutes: 180,
    },
  ],
  [
    'query_metrics, payment-api, 4 metrics p99, 3 h',
    'query_metrics',
    { service: 'payment-api', stat: 'p99', lastMinutes: 180 },
  ],
  [
    `query_logs, session-cache, a ${WINDOW_LINES.toLocaleString('en')}-line window (${WINDOW_MINUTES} min), all events`,
    'query_logs',
    { service: 'session-cache', lastMinutes: WINDOW_MINUTES },
  ],
];

/** The window's lines: Loghub's samples in turn when present, else numbered request lines. */
function windowLines(): { lines: string[]; source: string } {
  if (!loghubPresent()) {
    const lines = Array.from(
      { length: WINDOW_LINES },
      (_, i) => `INFO request ${i.toString(16).padStart(8, '0')} GET /cart ${(i % 977) + 3} ms`,
    );
    return { lines, source: 'numbered request lines (no Loghub data found)' };
  }
  const samples = SYSTEMS.flatMap((system) =>
    readFileSync(join(loghubDir(), `${system.name}_2k.log`), 'utf8')
      .trimEnd()
      .split('\n'),
  );
  const lines = Array.from({ length: WINDOW_LINES }, (_, i) => samples[i % samples.length] ?? '');
  return { lines, source: `Loghub's ${SYSTEMS.length} samples in turn` };
}

const harness = await startTelemetryHarness();
try {
  console.log(
    `Telemetry tools over the demo incident (${harness.telemetry.demo ? 'seed 3' : 'no demo'}), ${RUNS} runs each\n`,
  );
  const window = windowLines();
  const from = NOW - WINDOW_MINUTES * 60_000;
  for (const [index, message] of window.lines.entries())
    harness.telemetry.logs.put('/ecs/session-cache', 'bench-window', {
      timestamp: from + Math.floor((index * WINDOW_MINUTES * 60_000) / WINDOW_LINES),
      message,
    });
  console.log(`The ${WINDOW_LINES.toLocaleString('en')}-line window: ${window.source}\n`);
  let scope = 0;
  for (const [label, tool, args] of CASES) {
    const times: number[] = [];
    const redactionTimes: number[] = [];
    let chars = 0;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      // A scope per call: the per-scope budget would refuse the sixth call of one.
      const result = await harness.call(tool, args, { conversationId: 'bench', scope: `bench-${scope++}` });
      times.push(performance.now() - started);
      if (!result.ok) throw new Error(`${label}: ${result.error}`);
      chars = result.output.length;
      const redactionStarted = performance.now();
      await new Redactor('bench').redact(result.output);
      redactionTimes.push(performance.now() - redactionStarted);
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
    const redaction = median(redactionTimes);
    console.log(
      `${label}\n  median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${at(1).toFixed(0)} ms; output ${chars} chars (~${Math.ceil(chars / 4)} tokens)` +
        `\n  redaction of the output: median ${redaction.toFixed(1)} ms (+${((100 * redaction) / at(0.5)).toFixed(1)}% of the call's median)`,
    );
  }
} finally {
  await harness.close();
}
