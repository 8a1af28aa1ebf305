import './polyfills.ts';
import type { SlackAgentsConfigInput } from '../infra/config.ts';
import { feedbackExportCommand } from './feedback-export-command.ts';
import {
  DEVELOPMENT_SIGNING_SECRET,
  DEVELOPMENT_WEBHOOK_SECRETS,
  EVENTBRIDGE_PATH,
  startSandbox,
} from './sandbox.ts';
import { slackRetryPacing } from './sandbox-pacing.ts';
import { DEMO_INCIDENT_ALARM_PREFIXES, DEMO_INCIDENT_SETTINGS } from './telemetry/demo-incident-settings.ts';
import { installTerminalLog, parseLogFormat } from './terminal-log.ts';

/**
 * `npm run dev`: the offline sandbox. Settings from the environment:
 * - PORT (default 3000)
 * - SLACK_SIGNING_SECRET (default: a development secret, printed below)
 * - GITHUB_WEBHOOK_SECRET, PAGERDUTY_WEBHOOK_SECRET (default: development secrets, printed below)
 * - SANDBOX_TIME_SCALE (default 1; 0.001 turns a 2-hour wait into 7.2 seconds)
 * - SANDBOX_FUNCTION_THREADS: run the functions in that many worker threads (default: on the
 *   main thread with the emulators; local/function-threads.ts)
 * - ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY (passed to the model client unchanged)
 * - SLACK_CHANNEL_<NAME>=<id> for the channels the workflows use, e.g.
 *   SLACK_CHANNEL_BUG_REPORTS=C0123 (config key bugReports)
 * - SANDBOX_LOG_LEVEL (handlers' Powertools log level, default INFO)
 * - SANDBOX_LOG_FORMAT: `line` (default, one line per log record) or `json` (Powertools' JSON)
 * - SANDBOX_CONFIG: stack configuration as JSON, the `slackAgents` context's format, e.g.
 *   '{"channelConversations":{"timeoutSeconds":300,"useLlmJudge":true}}'
 * One option: `--state <dir>` keeps the sandbox's state there across restarts (local/sandbox-state.ts).
 */
function channelsFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const channels: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^SLACK_CHANNEL_([A-Z0-9_]+)$/.exec(name);
    if (!match?.[1] || !value) continue;
    const key = match[1].toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    channels[key] = value;
  }
  return channels;
}

/** `--state <dir>` (or `--state=<dir>`); any other argument is refused. */
function stateDirFromArgs(args: readonly string[]): string | undefined {
  let dir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--state' && args[i + 1] && !args[i + 1]?.startsWith('--')) dir = args[++i];
    else if (arg.startsWith('--state=') && arg.length > '--state='.length) dir = arg.slice('--state='.length);
    else {
      console.error(`unknown argument ${JSON.stringify(arg)}: the sandbox takes --state <dir> only`);
      process.exit(2);
    }
  }
  return dir;
}

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

/**
 * SANDBOX_CONFIG as JSON. Its fields are validated as `cdk synth` validates the context, by the
 * stack itself when the sandbox synthesizes it (a wrong field is named, see `startSandbox` below);
 * a configuration whose template is cached was valid when it was synthesized.
 */
function configFromEnv(): SlackAgentsConfigInput {
  const raw = process.env.SANDBOX_CONFIG;
  if (raw === undefined || raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('expected a JSON object');
    return parsed as SlackAgentsConfigInput;
  } catch (error) {
    console.error(`SANDBOX_CONFIG: ${(error as Error).message}`);
    process.exit(2);
  }
}

const fromEnv = configFromEnv();
// #general: a channel no workflow owns, for requirements interviews started by a mention and
// for channel conversations.
const channels: Record<string, string> = {
  general: 'C_GENERAL',
  ...(fromEnv.channels as Record<string, string> | undefined),
  ...channelsFromEnv(process.env),
};
// The bug workflow works on the sandbox GitHub's demo repository unless SANDBOX_CONFIG names one.
const bugInvestigation = { repository: 'demo/webshop', ...(fromEnv.bugInvestigation as object | undefined) };
// The issue pipeline works on the same demo repository: label one of its issues `agent`.
const issuePipeline = { repository: 'demo/webshop', ...(fromEnv.issuePipeline as object | undefined) };
// The incident workflow's demo skills (labelled, they change nothing) and a runbook, so
// `/investigate checkout latency` can show approval, a run and a rollback, unless SANDBOX_CONFIG names its own.
const incidentInvestigation = {
  ...DEMO_INCIDENT_SETTINGS,
  ...(fromEnv.incidentInvestigation as object | undefined),
};
// Their alarms reach the ingress through the alarm rule's configuration.
const alarms = { namePrefixes: DEMO_INCIDENT_ALARM_PREFIXES, ...(fromEnv.alarms as object | undefined) };
const config: SlackAgentsConfigInput = {
  ...fromEnv,
  channels,
  bugInvestigation,
  issuePipeline,
  incidentInvestigation,
  alarms,
};
const passThrough = Object.fromEntries(
  ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'].flatMap((name) => {
    const value = process.env[name];
    return value ? [[name, value]] : [];
  }),
);
const logLevel = (process.env.SANDBOX_LOG_LEVEL ?? 'INFO') as 'INFO';
try {
  installTerminalLog({ format: parseLogFormat(process.env.SANDBOX_LOG_FORMAT), color: process.stdout.isTTY });
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

const timeScale = numberFromEnv('SANDBOX_TIME_SCALE', 1);
const state = stateDirFromArgs(process.argv.slice(2));
const functionThreads = numberFromEnv('SANDBOX_FUNCTION_THREADS', 0);
const sandbox = await startSandbox({
  port: numberFromEnv('PORT', 3000),
  liveProgress: true,
  signingSecret: process.env.SLACK_SIGNING_SECRET || DEVELOPMENT_SIGNING_SECRET,
  webhookSecrets: {
    github: process.env.GITHUB_WEBHOOK_SECRET || DEVELOPMENT_WEBHOOK_SECRETS.github,
    pagerduty: process.env.PAGERDUTY_WEBHOOK_SECRET || DEVELOPMENT_WEBHOOK_SECRETS.pagerduty,
  },
  timeScale,
  config,
  // The Slack clients retry a failed call on the sandbox's time, as every wait is.
  env: { ...slackRetryPacing(timeScale), ...passThrough },
  logLevel,
  ...(functionThreads > 0 && { functionThreads: { count: functionThreads } }),
  ...(state !== undefined && { state }),
  // The demo incident: SANDBOX_DEMO_SEED picks another one (`off`: none), SANDBOX_LOGHUB_DIR adds noise.
  telemetry: {
    demoSeed: process.env.SANDBOX_DEMO_SEED === 'off' ? false : numberFromEnv('SANDBOX_DEMO_SEED', 3),
    ...(process.env.SANDBOX_LOGHUB_DIR ? { loghubDir: process.env.SANDBOX_LOGHUB_DIR } : {}),
  },
}).catch((error: unknown) => {
  // The stack rejects a wrong field of SANDBOX_CONFIG (InvalidConfigError, naming the field).
  if (error instanceof Error && error.name === 'InvalidConfigError') {
    console.error(`SANDBOX_CONFIG: ${error.message}`);
    process.exit(2);
  }
  throw error;
});

const channelList = sandbox.slack.workspace
  .channels()
  .map((c) => `#${c.name} (${c.id})`)
  .join(', ');
console.log(`
Sandbox listening on ${sandbox.url}
  Slack events (signed):  POST ${sandbox.url}/slack/events
  Post as a user:         POST ${sandbox.url}/sandbox/slack/post  {"channel","user","text","thread_ts?"}
  Edit as its author:     POST ${sandbox.url}/sandbox/slack/edit  {"channel","user","ts","text"}  (Slack's message_changed)
  Messages:               GET  ${sandbox.url}/sandbox/slack/messages?channel=<id>
  Executions:             GET  ${sandbox.url}/sandbox/executions
  Channels:               ${channelList}
  Bot user id:            ${sandbox.slack.workspace.botUserId}
  Signing secret:         ${sandbox.signingSecret}${sandbox.signingSecret === DEVELOPMENT_SIGNING_SECRET ? ' (development default; set SLACK_SIGNING_SECRET to change)' : ''}
  GitHub API (Octokit):   ${sandbox.github.apiUrl}  (demo repository: demo/webshop; the bug workflow works on ${bugInvestigation.repository})
  GitHub webhooks:        POST ${sandbox.url}/github/events, secret ${sandbox.webhookSecrets.github}${sandbox.webhookSecrets.github === DEVELOPMENT_WEBHOOK_SECRETS.github ? ' (development default; set GITHUB_WEBHOOK_SECRET to change)' : ''}
  PagerDuty webhooks:     POST ${sandbox.url}/pagerduty/events, secret ${sandbox.webhookSecrets.pagerduty}${sandbox.webhookSecrets.pagerduty === DEVELOPMENT_WEBHOOK_SECRETS.pagerduty ? ' (development default; set PAGERDUTY_WEBHOOK_SECRET to change)' : ''}
  Alarm events:           POST ${sandbox.url}${EVENTBRIDGE_PATH}  (an EventBridge event, invoked as the alarm rule would)
  History MCP server:     ${sandbox.historyMcpUrl ?? 'not enabled (mcp.historyServer)'}${sandbox.historyMcpUrl ? '  (SigV4 for service lambda, access key sandbox-incident-reader, secret sandbox; docs/mcp.md)' : ''}
  Time scale:             ${sandbox.timeScale}
  State:                  ${state === undefined ? 'in memory (--state <dir> keeps it across restarts)' : `kept in ${state}`}
  Conversations table:    ${sandbox.tableName}
  Feedback export:        ${feedbackExportCommand(sandbox)}
  Telemetry (emulated):   CloudWatch Logs, metrics, CloudFormation stack events on ${sandbox.url}${sandbox.telemetry.demo ? `; demo incident: payment-api deployed ${new Date(sandbox.telemetry.demo.deployAt).toISOString()}` : ''}${sandbox.telemetry.noiseNote ? ` (${sandbox.telemetry.noiseNote})` : ''}
  Model:                  ${passThrough.ANTHROPIC_BASE_URL ?? (passThrough.ANTHROPIC_API_KEY ? 'the Anthropic API' : undefined) ?? `offline demo model at ${sandbox.url}/demo-model (set ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY for a real one)`}${
    // The handlers' environment, from the template: what the stack configured.
    process.env.MODEL_PROVIDER === 'bedrock'
      ? `
  Bedrock Runtime:        ${sandbox.url}/model/${process.env.MODEL_ID}/invoke (emulated, SigV4 with dummy credentials, in front of the model above)`
      : ''
  }
`);

const stop = async () => {
  await sandbox.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
