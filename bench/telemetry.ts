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
 */
import { Redactor } from '../lambdas/redaction/index.ts';
import { startTelemetryHarness } from '../test/tools/telemetry-harness.ts';

const RUNS = 15;

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
];

const harness = await startTelemetryHarness();
try {
  console.log(
    `Telemetry tools over the demo incident (${harness.telemetry.demo ? 'seed 3' : 'no demo'}), ${RUNS} runs each\n`,
  );
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
