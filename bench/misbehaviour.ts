/**
 * Misbehaviour report: runs each acceptance scenario in the sandbox (a model that
 * never submits, hangs, answers 429 with a long retry-after, rejects the key or 500s for a minute; a Slack
 * that 500s for a minute, accepts a post and answers 500, or does not answer) and prints, per
 * scenario, the model calls, the tokens, the conversation's end state and the wall time.
 * Prints figures; it is not a test and asserts nothing. Run: `npm run bench:misbehaviour`.
 */
import {
  LIMITS,
  MODEL_MAX_RETRIES,
  MODEL_SCENARIOS,
  runScenario,
  SLACK_SCENARIOS,
  startMisbehaviourHarness,
  TIME_SCALE,
} from '../test/sandbox/misbehaviour-scenarios.ts';

const h = await startMisbehaviourHarness();
const rows: string[][] = [];
try {
  for (const scenario of [...MODEL_SCENARIOS, ...SLACK_SCENARIOS]) {
    const result = await runScenario(h, scenario);
    rows.push([
      result.scenario,
      String(result.modelCalls),
      String(result.tokens),
      result.endState,
      `${(result.wallMs / 1000).toFixed(1)} s`,
      result.slackFaultsMet.length > 0 ? String(result.slackFaultsMet.length) : '-',
    ]);
  }
} finally {
  await h.stop();
}

const header = ['scenario', 'model calls', 'tokens', 'end state', 'wall time', 'Slack faults met'];
const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)));
const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log(
  `time scale ${TIME_SCALE} (a minute of workflow time = ${60 * TIME_SCALE} s); limits: ${JSON.stringify(LIMITS)}; model client retries ${MODEL_MAX_RETRIES}`,
);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
