/**
 * `npm run preflight`: checks a configuration before `cdk deploy`, without AWS (the static
 * part), and with `--live` the deployed stack's secrets, Slack, GitHub and the model, with the
 * deploying account's credentials. Exits 1 when anything needs fixing; each line names the fix.
 *
 *   npm run preflight                          # cdk.json's slackAgents context
 *   npm run preflight -- -c docs/examples/incident-investigation.json
 *   npm run preflight -- --live                # after cdk deploy
 */
import { PREFLIGHT_USAGE, runPreflight } from '../infra/preflight/command.ts';

runPreflight(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `preflight: ${error instanceof Error ? error.message : String(error)}\n${PREFLIGHT_USAGE}\n`,
    );
    process.exitCode = 1;
  },
);
