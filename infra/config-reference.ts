import type * as z from 'zod';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';
import { CONFIG_CONTEXT_KEY, configSchema, parseConfig } from './config.ts';

/**
 * docs/configuration.md, generated from the configuration's schema (infra/config.ts and the
 * sections the workflow modules compose into it): every key at any depth with what it accepts
 * and its default, under the meaning of its section. `npm run docs:config` writes it; a test
 * fails when the file and the schema disagree.
 */

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
  checks?: { _zod: { def: { check: string; value?: unknown; format?: string } } }[];
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(schema: z.ZodType): { schema: z.ZodType; optional: boolean } {
  let current = schema;
  let optional = false;
  for (;;) {
    const def = defOf(current);
    if (
      ['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch'].includes(def.type) &&
      def.innerType
    ) {
      if (def.type === 'optional') optional = true;
      current = def.innerType;
    } else if (def.type === 'pipe' && def.in) current = def.in;
    else return { schema: current, optional };
  }
}

/** What a leaf accepts, in words. */
function accepts(schema: z.ZodType): string {
  const def = defOf(unwrap(schema).schema);
  const bounds = (def.checks ?? [])
    .map((c) => c._zod.def)
    .flatMap((c) =>
      c.check === 'greater_than' ? [`>= ${c.value}`] : c.check === 'less_than' ? [`<= ${c.value}`] : [],
    );
  switch (def.type) {
    case 'number': {
      const integer = (def.checks ?? []).some((c) => c._zod.def.format === 'safeint');
      return [integer ? 'integer' : 'number', ...bounds].join(', ');
    }
    case 'string':
      return 'text';
    case 'boolean':
      return 'true or false';
    case 'enum':
      return Object.values(def.entries ?? {})
        .map((v) => `\`${v}\``)
        .join(' or ');
    case 'literal':
      return (def.values ?? []).map((v) => `\`${String(v)}\``).join(' or ');
    case 'array':
      return def.element ? `list of ${accepts(def.element)}` : 'list';
    case 'record':
      return def.valueType ? `map of name to ${accepts(def.valueType)}` : 'map';
    case 'object':
      return 'object';
    case 'union':
      return (def.options ?? []).map(accepts).join(' or ');
    default:
      return def.type;
  }
}

interface Row {
  path: string;
  accepts: string;
  default: string;
}

function rows(schema: z.ZodType, path: string, defaults: unknown, out: Row[]): void {
  const { schema: inner } = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'object' && def.shape && Object.keys(def.shape).length > 0) {
    for (const [key, child] of Object.entries(def.shape)) {
      const value =
        defaults !== null && typeof defaults === 'object'
          ? (defaults as Record<string, unknown>)[key]
          : undefined;
      rows(child, `${path}.${key}`, value, out);
    }
    if (def.catchall && defOf(def.catchall).type !== 'never')
      out.push({ path: `${path}.<name>`, accepts: accepts(def.catchall), default: '-' });
    return;
  }
  if (def.type === 'array' && def.element) {
    const element = defOf(unwrap(def.element).schema);
    const structured = element.type === 'object' || element.type === 'union';
    out.push({
      path,
      accepts: structured ? 'list of objects, each:' : accepts(inner),
      default: render(defaults),
    });
    if (structured) rows(def.element, `${path}[]`, undefined, out);
    return;
  }
  if (
    def.type === 'union' &&
    def.options?.every((option) => defOf(unwrap(option).schema).type === 'object')
  ) {
    out.push({ path, accepts: 'one of the objects below', default: render(defaults) });
    // The options' fields once each; a field in several (the discriminator) accepts each's values.
    const merged = new Map<string, Row>();
    for (const option of def.options) {
      const optionRows: Row[] = [];
      rows(option, path, undefined, optionRows);
      for (const row of optionRows) {
        const known = merged.get(row.path);
        if (known === undefined) merged.set(row.path, { ...row });
        else if (!known.accepts.split(' or ').includes(row.accepts)) known.accepts += ` or ${row.accepts}`;
      }
    }
    out.push(...merged.values());
    return;
  }
  out.push({ path, accepts: accepts(inner), default: render(defaults) });
}

function render(value: unknown): string {
  if (value === undefined) return '-';
  const text = JSON.stringify(value);
  return `\`${text.length > 80 ? `${text.slice(0, 77)}...` : text}\``;
}

/** What each top-level key is for (the keys' own fields are listed under it). */
const SECTIONS: Record<string, string> = {
  sandbox:
    "This configuration is the offline sandbox's (`npm run dev`, the tests): its fake workspace ids (`C_...`, `S_...`, `U_...`) are allowed, and `cdk deploy` refuses it. Never set it for AWS.",
  stackName:
    'The CloudFormation stack `cdk deploy` creates or updates; one account and region can hold several installs under different names.',
  channels:
    "Slack channel ids by the name the workflows use. An enabled workflow's channels must be real ids (the channel's details in Slack, at the bottom).",
  people:
    "Who holds each role: Slack user group ids (`S...`) and user ids (`U...`). A role an enabled workflow needs, or whose holders decide its approvals, must have someone. A workflow's owner role configured here (an incident's `responder`) is its members' alone: a slash command that would start such a conversation for anyone else is refused, privately. See docs/deploy.md, \"User group ids\".",
  approvals: 'Who may decide what: decision kind to the roles whose holders may press its buttons.',
  botUserId:
    "The bot's own Slack user id. Leave it out: the functions read it from Slack's `auth.test` once per cold start (one deploy is enough).",
  reporterWaitSeconds: 'How long a workflow waits for the person who started it.',
  developerWaitSeconds: 'How long a workflow waits for developers.',
  model:
    "The model agent turns and channel conversations use: `anthropic` (the API key in the ModelCredentials secret) or `bedrock` (the functions' roles; a Bedrock model id or inference profile id).",
  modelPrices:
    'Model prices in USD per million tokens by model id, over the defaults of `lambdas/agents/pricing.ts`; the configured model must have one.',
  retentionDays: 'Days after which finished conversations and their messages expire (DynamoDB TTL).',
  logRetentionDays: 'How long the Lambda and Step Functions logs are kept (a CloudWatch Logs period).',
  inboxMaxReceiveCount: 'Deliveries of one inbox message before it moves to the dead-letter queue.',
  monitoring:
    'Alarms and the dashboard: e-mail addresses subscribed to the alarm topic, the model latency alarm.',
  deployment:
    'How a deploy moves new conversations to the new versions of the workflows: at once, or as a canary or linear shift that the named CloudWatch alarms roll back. Running conversations keep the version they started on (see operations.md, "Upgrading and rolling back").',
  alarms:
    "CloudWatch alarms whose state changes an EventBridge rule delivers to the ingress (exact names, name prefixes); an incident service's alarms must be among them.",
  agentLimits:
    'The bounds of every agent loop, held by code: turns, tokens, money, time, tool rounds, model timeouts and retries.',
  redaction:
    "The redaction layer, on every prompt and every text the platform writes out (Slack, GitHub, DynamoDB): secrets always, by secretlint's recommended rule set and by shape (secret-named keys with random values, URL passwords). `pii` names the personal data classes redacted too: `email` (addresses), `phone` (international `+` numbers and separated national ones), `card` (13 to 19 digits with a card network's prefix, Luhn-checked), `iban` (mod-97-checked), `ip` (IPv4 and IPv6 addresses); only `card` by default. `allow`: exact values left as they are. The same classes are masked in the stack's log groups. See docs/security-redaction.md.",
  bedrock:
    'Amazon Bedrock options, with `model.provider: bedrock`: `guardrail` (`id` or ARN, `version`) is applied to every model call (the functions get `bedrock:ApplyGuardrail` on it). See docs/security-redaction.md.',
  mcp: "MCP servers as the agents' toolsets, over Streamable HTTP: which tools of which server each workflow's agents get (`mcp__<server>__<tool>`), how each is guarded (`approve`: an approver's press in the thread, as `approvals.mcp_tool_call` says; `allow`; `refuse`), the request headers from a Secrets Manager secret, per-call timeout and result bound, and the conversation's call budget. `historyServer`: the conversation history as a read-only MCP server for people's own assistants, behind a Function URL with IAM auth (output `HistoryMcpUrl`); each reader is an IAM role ARN (its assumed-role sessions match), an IAM user ARN or an account id, with the workflows whose conversations it may read. See docs/mcp.md.",
  liveProgress:
    "Whether agent turns show what they do while they work: a task per tool call in the conversation's thread (a streamed message, or one message updated in place), and the status of assistant threads. See docs/live-progress.md.",
  reconciler:
    'The sweep for stuck conversations: how often, after how long, how many repairs before failing.',
  github:
    'GitHub, for workflows that work on a repository: the REST API base URL (GitHub Enterprise Server: `https://HOST/api/v3`), and with a token the login it acts as.',
  protectedPaths:
    "The paths whose change waits for an approver or is refused, for every workflow that writes code (each workflow's `protectedChanges` says which). The defaults cover, per ecosystem, what runs during install, build, test, checkout or deploy and what configures the checks: CI, git-hook managers, package-manager hooks and vendored tools, manifests and lockfiles, build wrappers and build-tool configuration, test-runner configuration and conftest files, linters and their ignore files, environment loaders and version pins, deploy configuration, CODEOWNERS, agent configuration (`lambdas/changes/default-protected-paths.ts`, each entry with what runs and its source). `add`: patterns protected besides them; `remove`: defaults not protected here, each written exactly as in that list. See docs/security-code-changes.md.",
  bugInvestigation:
    'Bug investigation: a top-level message in `channels.bugReports` starts one; findings to `bugSummaries`, escalations to `developers` mentioning `people.on_call`. With `repository`, code tools and fixes as pull requests (a GitHub App, CodeBuild).',
  requirementsInterview:
    'Requirements interview: `/prd <idea>` or a mention starting with a keyword; clarifies, writes a PRD and its analysis.',
  incidentInvestigation:
    "Incident investigation: `/investigate`, a service's CloudWatch alarm or PagerDuty incident opens a thread in `channels.incidents`; hypotheses tested against telemetry, remediation steps run only once approved (`approvals.remediation_step`). Skills: `lambda` (a function name or ARN) or `ssm_automation` (a document); `demo` is the sandbox's. `telemetry`: what the data tools read: services (log groups, metrics, CloudFormation stacks, dependencies), query bounds, and the data sources (CloudWatch; Datadog and PagerDuty when enabled, each with its credentials secret); it was the top-level `telemetry` key, still read there with a deprecation warning.",
  channelConversations:
    'Channel conversations: after a mention the bot stays attentive in a channel no workflow owns.',
  issuePipeline:
    'Issue pipeline: an issue labelled `label` in `repository` goes through triage, analyst, writer, build, reviewer and committer to a pull request; progress in `channels.issuePipeline`. Without `repository` nothing of it is deployed.',
};

export function renderConfigurationReference(): string {
  const schema = configSchema(WORKFLOW_MODULES);
  // The sandbox's defaults show its placeholders; its own flag and bot id are not defaults elsewhere.
  const defaults: Record<string, unknown> = { ...parseConfig({ sandbox: true }), sandbox: false };
  delete defaults.botUserId;
  const shape = defOf(schema).shape ?? {};
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from the schema by `npm run docs:config` (infra/config-reference.ts); a test fails when it is out of date. -->',
    '',
    `The CDK context \`${CONFIG_CONTEXT_KEY}\` (in \`cdk.json\`, or \`-c ${CONFIG_CONTEXT_KEY}='{...}'\`), validated at synth: an unknown key`,
    "anywhere fails with the nearest known name, the sandbox's fake ids fail outside the sandbox, and an",
    'enabled workflow without its channels or people fails naming what to set. Complete examples:',
    '`docs/examples/`. Defaults below are those of the sandbox where they are its placeholders (`C_...`, `S_...`).',
    '',
  ];
  for (const [key, child] of Object.entries(shape)) {
    const out: Row[] = [];
    rows(child, key, defaults[key], out);
    lines.push(`## \`${key}\``, '', SECTIONS[key] ?? '', '', '| key | accepts | default |', '|---|---|---|');
    for (const row of out)
      lines.push(
        `| \`${row.path}\` | ${row.accepts.replaceAll('|', '\\|')} | ${row.default.replaceAll('|', '\\|')} |`,
      );
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
