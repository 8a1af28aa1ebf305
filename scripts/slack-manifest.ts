import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONFIG_CONTEXT_KEY, parseConfig } from '../infra/config.ts';
import { buildSlackManifest, PLACEHOLDER_REQUEST_URL } from '../infra/slack-manifest.ts';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';

/**
 * `npm run slack:manifest -- [--request-url https://...] [-c '{...}'] [--name ...] [--bot-name ...]`
 * prints the Slack app manifest (JSON) for the configured stack. The configuration is, first
 * found: `-c`/`--config` (JSON), `SLACK_AGENTS_CONFIG` (JSON), cdk.json's `slackAgents`
 * context; it is validated as `cdk synth` validates it. `--request-url` is the deployed
 * stack's `SlackRequestUrl` output.
 */
const USAGE =
  'usage: npm run slack:manifest -- [--request-url https://<SlackRequestUrl>] [-c <config JSON>] [--name <app name>] [--bot-name <bot display name>]';

function main(): void {
  const { values } = parseArgs({
    options: {
      'request-url': { type: 'string' },
      config: { type: 'string', short: 'c' },
      name: { type: 'string' },
      'bot-name': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = parseConfig(values.config ?? process.env.SLACK_AGENTS_CONFIG ?? cdkJsonConfig());
  const requestUrl = values['request-url'];
  if (requestUrl === undefined) {
    process.stderr.write(
      `slack:manifest: no --request-url given: the manifest points at ${PLACEHOLDER_REQUEST_URL}; ` +
        'pass the deployed stack output SlackRequestUrl.\n',
    );
  }
  const manifest = buildSlackManifest({
    config,
    modules: WORKFLOW_MODULES,
    ...(requestUrl === undefined ? {} : { requestUrl }),
    ...(values.name === undefined ? {} : { appName: values.name }),
    ...(values['bot-name'] === undefined ? {} : { botDisplayName: values['bot-name'] }),
  });
  process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
}

/** cdk.json's `slackAgents` context, as `cdk synth` reads it; `{}` when absent. */
function cdkJsonConfig(): unknown {
  const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context?.[CONFIG_CONTEXT_KEY] ?? {};
}

try {
  main();
} catch (error) {
  process.stderr.write(
    `slack:manifest: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`,
  );
  process.exitCode = 1;
}
