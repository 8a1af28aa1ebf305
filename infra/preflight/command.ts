/**
 * What `npm run preflight` does (scripts/preflight.ts is its entry point): checks a configuration
 * before `cdk deploy`, without AWS (the static part), and with `--live` the deployed stack's
 * secrets, Slack, GitHub and the model, with the deploying account's credentials. Exits 1 when
 * anything needs fixing; each line names the fix.
 *
 *   npm run preflight                          # cdk.json's slackAgents context
 *   npm run preflight -- -c docs/examples/incident-investigation.json
 *   npm run preflight -- --live                # after cdk deploy
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONFIG_CONTEXT_KEY } from '../config.ts';
import { type ConfigSource, remainingSteps } from './deploy-steps.ts';
import { livePreflight } from './live-checks.ts';
import { environmentLines, staticPreflight } from './static-checks.ts';

export const PREFLIGHT_USAGE = `usage: npm run preflight -- [-c <configuration JSON or file>] [--live]
  -c, --config  the configuration (JSON text or a .json file); else SLACK_AGENTS_CONFIG, else cdk.json's ${CONFIG_CONTEXT_KEY}
  --live        also check the deployed stack with the current AWS credentials`;

/**
 * `npm run preflight` with these arguments: what it prints goes to `out`, one line per call, and
 * the answer is its exit status (1 when anything needs fixing). A wrong argument throws.
 */
export async function runPreflight(args: readonly string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      config: { type: 'string', short: 'c' },
      live: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    out(PREFLIGHT_USAGE);
    return 0;
  }
  const source: ConfigSource =
    values.config !== undefined
      ? values.config.trim().startsWith('{')
        ? { kind: 'text', text: values.config }
        : { kind: 'file', path: values.config }
      : process.env.SLACK_AGENTS_CONFIG !== undefined
        ? { kind: 'env' }
        : { kind: 'cdk.json' };
  const raw = configuration(values.config ?? process.env.SLACK_AGENTS_CONFIG);

  out('Static checks (no AWS): the configuration, cdk-nag, the limits synth does not check');
  const report = staticPreflight(raw);
  if (report.template !== undefined) {
    out(`  synthesized ${report.stackName} in ${(report.synthMilliseconds / 1000).toFixed(1)} s`);
    out('  environment of each function, at its longest (Lambda takes 4096 bytes):');
    for (const line of environmentLines(report.environmentSizes)) out(`    ${line}`);
  }
  for (const problem of report.problems) out(`  FIX ${problem}`);
  if (report.problems.length > 0 || report.config === undefined) {
    out(`${report.problems.length} problem(s): fix them and run npm run preflight again.`);
    return 1;
  }
  out('  ok');
  if (values.live !== true) {
    out('\nDeploy steps that remain:');
    for (const step of remainingSteps(report.config, report.stackName, source)) out(`  ${step}`);
    out(
      '  (out <Output> = aws cloudformation describe-stacks --stack-name ' +
        `${report.stackName} --query "Stacks[0].Outputs[?OutputKey=='<Output>'].OutputValue" --output text)`,
    );
    return 0;
  }

  out('\nLive checks (the deployed stack, with the current AWS credentials)');
  const live = await livePreflight(report.config, report.stackName);
  for (const line of live.passed) out(`  ok  ${line}`);
  for (const problem of live.problems) out(`  FIX ${problem}`);
  if (live.problems.length > 0) {
    out(`${live.problems.length} problem(s): fix them and run npm run preflight -- --live again.`);
    return 1;
  }
  out('Ready: send the test message of docs/deploy.md, "Verify the install".');
  return 0;
}

/** JSON text, a JSON file, or cdk.json's context. */
function configuration(given: string | undefined): unknown {
  if (given !== undefined) return given.trim().startsWith('{') ? given : readFileSync(given, 'utf8');
  const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context?.[CONFIG_CONTEXT_KEY] ?? {};
}
