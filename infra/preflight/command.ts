/**
 * What `npm run preflight` does (scripts/preflight.ts is its entry point): checks a configuration
 * before `cdk deploy`, without AWS (the static part), and with `--live` the deployed stack's
 * secrets, Slack, GitHub and the model, with the deploying account's credentials. Exits 1 when
 * anything needs fixing; each line names the fix.
 *
 *   npm run preflight                          # cdk.json's slackAgents context
 *   npm run preflight -- -c docs/examples/incident-investigation.json
 *   npm run preflight -- --live                # after cdk deploy
 *   npm run preflight -- --against cdk.out.previous/SlackAgents.template.json   # what a deploy changes in flight
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONFIG_CONTEXT_KEY } from '../config.ts';
import { type ConfigSource, remainingSteps } from './deploy-steps.ts';
import { environmentLines, staticPreflight } from './static-checks.ts';
import { compareForInFlight, type TemplateJson } from './template-diff.ts';

export const PREFLIGHT_USAGE = `usage: npm run preflight -- [-c <configuration JSON or file>] [--live] [--against <template file or stack> [--current <template file>]]
  -c, --config  the configuration (JSON text or a .json file); else SLACK_AGENTS_CONFIG, else cdk.json's ${CONFIG_CONTEXT_KEY}
  --live        also check the deployed stack with the current AWS credentials
  --against     list what deploying this configuration over that template (a previous deploy's
                cdk.out template, or a deployed stack's name) changes for conversations in flight
  --current     compare this template (a cdk.out of the release to deploy) instead of the one
                preflight synthesizes without bundling (whose function code hashes are not the deploy's)`;

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
      against: { type: 'string' },
      current: { type: 'string' },
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
  if (values.against !== undefined) {
    out(`\nAgainst ${values.against}: what the deploy changes for conversations in flight`);
    // Loaded when asked for, as the live checks are: its CloudFormation client is not needed otherwise.
    const { againstTemplate, printInFlight } = await import('./against.ts');
    const current =
      values.current !== undefined
        ? await againstTemplate(values.current)
        : (report.template as TemplateJson);
    const status = printInFlight(compareForInFlight(await againstTemplate(values.against), current), out);
    if (status !== 0) return status;
  }
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
  // Loaded when asked for: the live checks' AWS, Slack and model clients take seconds to load,
  // which the static preflight (the one most runs are) never needs.
  const { livePreflight } = await import('./live-checks.ts');
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
