/**
 * Synth time: the stack with the default configuration and with every documented option
 * enabled (test/infra/all-options.ts), built and synthesized in memory as `cdk synth` does
 * (bundling skipped, as the tests and the sandbox do), then checked with cdk-nag's AWS
 * Solutions pack. Prints the median of RUNS runs per cell, the resource count and the number
 * of unacknowledged findings; asserts nothing. Run: `npm run bench:synth`.
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildStack } from '../infra/synth.ts';
import { ALL_OPTIONS_CONFIG } from '../test/infra/all-options.ts';

const RUNS = Number(process.env.RUNS ?? 5);
const CONFIGS = { default: {}, 'every option': ALL_OPTIONS_CONFIG } as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

console.log(
  '| configuration | resources | synth (median ms) | cdk-nag (median ms) | unacknowledged findings |',
);
console.log('|---|---|---|---|---|');
for (const [name, config] of Object.entries(CONFIGS)) {
  const synth: number[] = [];
  const nag: number[] = [];
  let resources = 0;
  let findings = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const { app, stack } = buildStack({ config });
    const template = app.synth().getStackArtifact(stack.artifactId).template as { Resources: object };
    synth.push(performance.now() - started);
    resources = Object.keys(template.Resources).length;
    const checked = performance.now();
    const report = new AwsSolutionsChecks().validateScope(stack);
    nag.push(performance.now() - checked);
    findings = report.violations.reduce((sum, v) => sum + v.violatingResources.length, 0);
  }
  console.log(
    `| ${name} | ${resources} | ${Math.round(median(synth))} | ${Math.round(median(nag))} | ${findings} |`,
  );
}
