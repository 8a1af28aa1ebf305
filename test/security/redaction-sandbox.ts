import { gunzipSync } from 'node:zlib';
import { type AttributeValue, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { Octokit } from '@octokit/rest';
import { PII_CLASSES } from '../../lambdas/redaction/index.ts';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { everyValue, fakeValues, grouped } from '../redaction/fake-values.ts';
import { evaluation, HYPOTHESES, INCONCLUSIVE, NO_PLAN, TRIAGE } from '../sandbox/incident-harness.ts';
import { ANALYSIS, assess, PRD } from '../sandbox/requirements-harness.ts';
import { workerSandbox } from '../support/sandbox.ts';
import {
  lastToolResults,
  lastUserText,
  type ModelReply,
  type RecordedModelRequest,
  startScriptedModel,
  submit,
  text,
  toolResultText,
  toolUse,
} from '../support/scripted-model.ts';
import { commitOnBranch, REPO } from './support.ts';

/**
 * The redaction acceptance scenario's world: secrets and personal data of every class seeded
 * where the agents read (logs, a repository file, an issue body, a PagerDuty payload, Slack
 * messages), one sandbox running every workflow, and a scripted model that reads the seeded
 * sources through its tools and writes back both what it read and the seeded lines themselves
 * (as a model that was shown them, or made them up, would), in every answer it gives.
 */

export const v = fakeValues(11);

/** Every seeded value, as it could be written out (the card also in its printed groups). */
export const SEEDED: readonly string[] = [...everyValue(v), grouped(v.card)];

/** The seeded texts, each value in the context it is found in. */
export const SOURCES = {
  logs: [
    `ERROR login failed for ${v.email} from ${v.ip} with key ${v.awsAccessKey}`,
    `ERROR login failed, AWS_SECRET_ACCESS_KEY=${v.awsSecretKey} rejected`,
  ],
  file: `DATABASE_URL=postgres://shop:${v.dbPassword}@db.internal:5432/shop\nAPI_KEY=${v.apiKey}\nGITHUB_TOKEN=${v.githubToken}\n`,
  issue: `Checkout fails for ${v.email}, phone ${v.phone}, card ${grouped(v.card)}, IBAN ${v.iban}.`,
  pagerduty: `Checkout 500s, slack bot ${v.slackToken} on ${v.ip}`,
  slack: `My card ${v.card} was charged twice, call me on ${v.phone} or mail ${v.email}; our key ${v.awsAccessKey}`,
};

/** Everything seeded, as one text: what the scripted model writes back in every answer. */
export const ALL_SEEDED_TEXT = [
  ...SOURCES.logs,
  SOURCES.file,
  SOURCES.issue,
  SOURCES.pagerduty,
  SOURCES.slack,
].join('\n');

/** The placeholder kinds the seeded texts give. */
export const KINDS = [
  'secret:aws-access-key',
  'secret:aws-secret-key',
  'secret:github-token',
  'secret:slack-token',
  'secret:connection-string',
  ...PII_CLASSES.map((kind) => `pii:${kind}`),
];

export function leaked(text: string): string[] {
  return SEEDED.filter((value) => text.includes(value));
}

/** The kinds with no placeholder in `text` (as written, or as Slack's mrkdwn escapes it: `&lt;pii:email#91c0&gt;`). */
export function missingPlaceholders(text: string): string[] {
  return KINDS.filter((kind) => !text.includes(`<${kind}#`) && !text.includes(`&lt;${kind}#`));
}

export const CHANNELS = {
  reports: 'C_BUG_REPORTS',
  summaries: 'C_BUG_SUMMARIES',
  product: 'C_PRODUCT',
  incidents: 'C_INCIDENTS',
  general: 'C_GENERAL',
  developers: 'C_DEVELOPERS',
} as const;
export const PAGERDUTY_SERVICE = 'PF9KMXH';

/** What the model writes back: the seeded lines, then what it read this turn. */
function quoting(request: RecordedModelRequest): string {
  const read = lastToolResults(request.body).map(toolResultText).join('\n') || lastUserText(request.body);
  return `${ALL_SEEDED_TEXT}\nWhat I read: ${read.slice(0, 1_000)}`;
}

const ID_LABELS = {
  bug: 'Bug id',
  interview: 'Interview id',
  pipeline: 'Issue pipeline id',
  incident: 'Incident id',
} as const;
type Workflow = keyof typeof ID_LABELS | 'channel';

/** The workflow and conversation a request belongs to, by the id its prompt names (none: a channel answer). */
function conversationOf(request: RecordedModelRequest): { workflow: Workflow; id: string } {
  const messages = JSON.stringify(request.body.messages);
  for (const [workflow, label] of Object.entries(ID_LABELS)) {
    const id = new RegExp(`${label}: \\\\?"([^"\\\\]+)\\\\?"`).exec(messages)?.[1];
    if (id) return { workflow: workflow as Workflow, id };
  }
  return { workflow: 'channel', id: 'channel' };
}

const finalTool = (request: RecordedModelRequest) =>
  (request.body.tools?.at(-1) as { name?: string } | undefined)?.name ?? '';
const hasRead = (request: RecordedModelRequest) => lastToolResults(request.body).length > 0;

const FIX_DIFF = `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-  const vat = vatFor(subtotal, options.region);\n+  const vat = vatFor(net, options.region);\n`;

/** Each agent's turn: read through a tool first where it has one, then answer quoting. */
function replyOf(request: RecordedModelRequest): ModelReply {
  const { workflow, id } = conversationOf(request);
  const said = quoting(request);
  const tool = finalTool(request);
  const answer = (input: unknown) => toolUse(tool, input);
  switch (workflow) {
    case 'channel':
      return text(said);
    case 'bug':
      if (!hasRead(request)) return toolUse('get_bug_conversations', { bug_id: id });
      return submit({
        action: 'post_findings',
        summary: said,
        root_cause: said,
        confidence: 60,
        severity: 'high',
      });
    case 'interview': {
      // The clarifier, the PRD writer and the analyst share the final tool; its schema tells them apart.
      const fields = Object.keys(
        (request.body.tools?.at(-1) as { input_schema?: { properties?: object } } | undefined)?.input_schema
          ?.properties ?? {},
      );
      if (fields.includes('confidence'))
        return assess({ confidence: 98, questions: [], open_unknowns: [said] });
      if (fields.includes('problem')) return submit({ ...PRD, problem: said });
      return submit({ ...ANALYSIS, summary: said });
    }
    case 'incident':
      if (tool === 'submit_triage') {
        if (!hasRead(request))
          return toolUse('query_logs', { service: 'payment-api', filterPattern: 'login', lastMinutes: 60 });
        return answer({ ...TRIAGE, incident_summary: said });
      }
      if (tool === 'submit_hypotheses') return answer(HYPOTHESES);
      if (tool === 'submit_evaluation') {
        const hypothesis = /You investigate hypothesis (H[\d.]+)/.exec(JSON.stringify(request.body))?.[1];
        return answer({ ...evaluation(hypothesis ?? 'H1', 'prune', 'none'), reasoning: said });
      }
      if (tool === 'submit_conclusion') return answer({ ...INCONCLUSIVE, root_cause: said });
      return answer(NO_PLAN);
    case 'pipeline':
      if (tool === 'submit_triage') {
        if (!hasRead(request)) return toolUse('read_file', { path: '.env' });
        return answer({ type: 'BUG_FIX', scope: 'SMALL', complexity: 'simple', should_proceed: true });
      }
      if (tool === 'submit_analysis') return answer({ ...PIPELINE_ANALYSIS, brief: said });
      if (tool === 'submit_changes') {
        if (!hasRead(request))
          return toolUse('write_file', {
            path: DEMO_BUG.file,
            diff: FIX_DIFF,
            // A commit message goes to GitHub straight from the model, through no other door.
            message: `Charge VAT on net\n\n${SOURCES.file}${SOURCES.issue}`,
          });
        return answer({
          changes: [{ file: DEMO_BUG.file, description: 'VAT on net' }],
          test_written: false,
          summary: said,
        });
      }
      if (!hasRead(request)) return toolUse('get_diff', {});
      return answer({ verdict: 'APPROVED', findings: { good: [said.slice(0, 400)], issues: [] } });
  }
}

const PIPELINE_ANALYSIS = {
  files: [{ path: DEMO_BUG.file, purpose: 'checkout totals', action: 'modify' }],
  patterns: ['Money is in cents'],
  test_requirement: { required: false, type: 'none', location: '', description: '' },
  must_do: ['Charge VAT on the amount after the discount'],
  must_not_do: ['Do not change the discount rules'],
};

export interface RedactionWorld {
  sandbox: Sandbox;
  /** Every request the model received. */
  requests: RecordedModelRequest[];
  modelFailures: string[];
  /** The GitHub emulator as its maintainer sees it (writes through it are not the platform's). */
  github: Octokit;
  stop(): Promise<void>;
}

/** One sandbox running every workflow, with the seeded logs and repository file in place. */
export async function startRedactionWorld(): Promise<RedactionWorld> {
  const model = await startScriptedModel({ steps: replyOf });
  const sandbox = await workerSandbox({
    timeScale: 0.001,
    config: {
      channels: CHANNELS,
      redaction: { pii: [...PII_CLASSES] },
      issuePipeline: { repository: `${REPO.owner}/${REPO.repo}` },
      incidentInvestigation: {
        mapConcurrency: 3,
        services: [{ name: 'checkout', pagerDutyServices: [PAGERDUTY_SERVICE] }],
      },
    },
    env: {
      ANTHROPIC_BASE_URL: model.baseUrl,
      ANTHROPIC_API_KEY: 'test-key',
      MODEL_MAX_RETRIES: '2',
      // Every turn's timeline at once: its tool lines are a door too, and say what was redacted.
      LIVE_PROGRESS_AFTER_MS: '0',
    },
    liveProgress: true,
    logLevel: 'SILENT',
  });
  const now = Date.now();
  for (const [index, message] of SOURCES.logs.entries())
    sandbox.telemetry.logs.put('/ecs/payment-api', 'seeded', { timestamp: now - 60_000 + index, message });
  const github = new Octokit({
    baseUrl: sandbox.github.apiUrl,
    auth: sandbox.github.createUserToken('demo-maintainer'),
  });
  await commitOnBranch(github, 'main', [{ path: '.env', mode: '100644', content: SOURCES.file }], 'Add .env');
  return {
    sandbox,
    requests: model.requests,
    modelFailures: model.failures,
    github,
    async stop() {
      await sandbox.stop();
      await model.close();
    },
  };
}

/**
 * Every item of every table as text, with its partition key: attributes as stored, and binary
 * attributes unpacked (transcripts are gzipped JSON split into chunks, joined here in order).
 */
export async function storedItems(sandbox: Sandbox): Promise<Array<{ pk: string; text: string }>> {
  const { TableNames = [] } = await sandbox.dynamodb.send(new ListTablesCommand({}));
  const items: Array<{ pk: string; text: string }> = [];
  const chunked = new Map<string, { pk: string; chunks: Array<{ chunk: number; data: Uint8Array }> }>();
  for (const table of TableNames) {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await sandbox.dynamodb.send(
        new ScanCommand({ TableName: table, ExclusiveStartKey: start }),
      );
      for (const item of page.Items ?? []) {
        const pk = item.pk?.S ?? '';
        items.push({ pk, text: JSON.stringify(item) });
        for (const [name, value] of Object.entries(item)) {
          if (!value.B) continue;
          if (item.chunk?.N === undefined) items.push({ pk, text: Buffer.from(value.B).toString('utf8') });
          else {
            const key = `${table}/${pk}/${item.sk?.S?.replace(/#\d+$/, '')}/${name}`;
            const entry = chunked.get(key) ?? { pk, chunks: [] };
            entry.chunks.push({ chunk: Number(item.chunk.N), data: value.B });
            chunked.set(key, entry);
          }
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  for (const { pk, chunks } of chunked.values()) {
    const whole = Buffer.concat(chunks.sort((a, b) => a.chunk - b.chunk).map((c) => c.data));
    items.push({ pk, text: gunzipSync(whole).toString('utf8') });
  }
  return items;
}
