/**
 * `npm run bench:environment`: each function's environment at its longest (Lambda takes 4096
 * bytes in all) and the synth time, for the README's small configuration and for a large one
 * (every workflow with its repository, 30 incident services with alarms and telemetry, 50
 * people: test/support/large-config.ts).
 */
import { environmentSizes } from '../infra/limits.ts';
import { synthesizeTemplate } from '../infra/synth.ts';
import { LARGE_CONFIG } from '../test/support/large-config.ts';

const SMALL = {
  channels: { bugReports: 'C0100000001', bugSummaries: 'C0100000002', developers: 'C0100000003' },
  people: { developer: { groups: ['S0100000001'] }, on_call: { groups: ['S0100000002'] } },
  incidentInvestigation: { enabled: false },
};

for (const [name, config] of [
  ['small (bug investigation only)', SMALL],
  ['large (30 services, 50 people)', LARGE_CONFIG],
] as const) {
  const started = performance.now();
  const template = synthesizeTemplate({ config, sandbox: false });
  const seconds = (performance.now() - started) / 1000;
  const sizes = [...environmentSizes(template)].sort(([, a], [, b]) => b - a);
  process.stdout.write(`\n${name}: synth ${seconds.toFixed(1)} s, ${sizes.length} functions\n`);
  for (const [id, size] of sizes)
    process.stdout.write(`  ${id.padEnd(34)} ${String(size).padStart(5)} bytes\n`);
}
