import { gunzipSync } from 'node:zlib';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../lambdas/adapters/anthropic-model.ts';
import { DynamoTranscriptStore } from '../../lambdas/adapters/dynamo-transcripts.ts';
import { withRedaction } from '../../lambdas/adapters/github-redaction.ts';
import { redactingModel } from '../../lambdas/adapters/redacting-model.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { PII_CLASSES, RedactionSettings } from '../../lambdas/redaction/index.ts';
import { RedactingWebClient } from '../../lambdas/slack/redacting-web-client.ts';
import {
  drained,
  fakeTools,
  MemoryTranscripts,
  turnDeps,
  turnInput,
  useScriptedModel,
} from '../agents/support.ts';
import { everyValue, fakeValues, grouped } from '../redaction/fake-values.ts';
import { startDynalite } from '../support/dynalite.ts';
import { startRecordingServer } from '../support/recording-server.ts';
import { lastToolResults, submit, toolResultText, toolUse } from '../support/scripted-model.ts';

/** The most characters of one tool output the model is shown (stated here, not imported: the value is what this test checks). */
const TOOL_OUTPUT_LIMIT = 20_000;

/**
 * Secrets and personal data of every class, seeded where the agents read (a person's message,
 * logs, a repository file, an issue body, a PagerDuty payload), must reach no model request, no
 * Slack post, no pull request or comment and no DynamoDB item; placeholders stand where they were.
 */

const v = fakeValues(11);
const SETTINGS = RedactionSettings.parse({ pii: [...PII_CLASSES] });
const SEEDED = everyValue(v);

const SOURCES: Record<string, string> = {
  logs: `2001-02-03T04:05:06Z ERROR payment-api login failed for ${v.email} from ${v.ip} key ${v.awsAccessKey}\nAWS_SECRET_ACCESS_KEY=${v.awsSecretKey}`,
  file: `# .env committed by mistake\nDATABASE_URL=postgres://shop:${v.dbPassword}@db.internal:5432/shop\nAPI_KEY=${v.apiKey}\nGITHUB_TOKEN=${v.githubToken}`,
  issue: `Checkout fails for the customer ${v.email}, phone ${v.phone}, card ${grouped(v.card)}, IBAN ${v.iban}.`,
  pagerduty: JSON.stringify({
    event: { data: { title: 'payment-api 5xx', details: `slack bot ${v.slackToken} on ${v.ip}` } },
  }),
};

const scripted = useScriptedModel();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function leaked(text: string): string[] {
  return SEEDED.filter((value) => text.includes(value));
}

/** A recording server, closed after the test. */
async function recorder(answer: Parameters<typeof startRecordingServer>[0]) {
  const server = await startRecordingServer(answer);
  closers.push(server.close);
  return server;
}

/** The Slack door in front of a recording server. */
const slackClient = (url: string) =>
  new RedactingWebClient('xoxb-test', { slackApiUrl: `${url}/api/`, retryConfig: { retries: 0 } }, SETTINGS);

describe('the redaction layer at every boundary', () => {
  it('keeps every seeded value out of the model requests and the transcript while the model quotes what it read', async () => {
    const reads = Object.keys(SOURCES);
    const server = await scripted([
      ...reads.map((source) => toolUse('get_bug_conversations', { bug_id: source })),
      // The model quotes everything its tools returned, as an attacker's instructions would ask.
      (request) => {
        const quoted = lastToolResults(request.body).map(toolResultText).join(' ');
        return submit({
          action: 'post_findings',
          summary: quoted.slice(0, 1_500),
          root_cause: 'quoted',
          confidence: 50,
          severity: 'high',
        });
      },
    ]);
    let call = 0;
    const tools = fakeTools({ get_bug_conversations: () => SOURCES[reads[call++] ?? 'logs'] ?? '' });
    const transcripts = new MemoryTranscripts();
    const model = redactingModel(
      createAnthropicModel({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 0 }),
      SETTINGS,
      'model',
    );

    const output = await runAgentTurn(
      turnInput({
        messages: [
          drained('reporter', 'U_REPORTER', `My card ${v.card} was charged twice, mail me at ${v.email}`),
        ],
      }),
      turnDeps(server.baseUrl, { model, tools: tools.invoker, transcripts, redaction: SETTINGS }),
    );

    const requests = server.requests.map((request) => JSON.stringify(request.body));
    expect(requests.length).toBe(reads.length + 1);
    for (const request of requests) expect(leaked(request)).toEqual([]);
    const everything = requests.join('\n');
    for (const kind of [
      'aws-access-key',
      'aws-secret-key',
      'github-token',
      'slack-token',
      'connection-string',
    ])
      expect(everything).toContain(`<secret:${kind}#`);
    for (const kind of PII_CLASSES) expect(everything).toContain(`<pii:${kind}#`);
    expect(leaked(JSON.stringify(output))).toEqual([]);
    expect(JSON.stringify(output)).toContain('<secret:slack-token#');
    expect(leaked(JSON.stringify(transcripts.saved('session-1', 1)))).toEqual([]);
  });

  it('sees a tool result whole before it is cut to size: a token on the cut reaches the provider in no part', async () => {
    // Only the prompt door sees the output whole: cut first, the token's head alone is no rule's
    // match, and the model door would let it pass.
    // The cut falls 30 characters into the token; its placeholder (26 characters) ends before it.
    const head = 'x'.repeat(TOOL_OUTPUT_LIMIT - 40);
    const output = `${head} rejected ${v.githubToken} at login\n${'y'.repeat(500)}`;
    const server = await scripted([
      toolUse('get_bug_conversations', { bug_id: 'logs' }),
      submit({ action: 'post_findings', summary: 's', root_cause: 'r', confidence: 50, severity: 'high' }),
    ]);
    const tools = fakeTools({ get_bug_conversations: () => output });
    const model = redactingModel(
      createAnthropicModel({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 0 }),
      SETTINGS,
      'model',
    );

    await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, { model, tools: tools.invoker, redaction: SETTINGS }),
    );

    const answered = server.requests[1];
    const read = answered ? lastToolResults(answered.body).map(toolResultText).join('\n') : '';
    expect(read).toContain('[output truncated');
    // The token's first 16 characters (its prefix and 12 of its own) are in no request.
    const token = v.githubToken.slice(0, 16);
    for (const request of server.requests) expect(JSON.stringify(request.body)).not.toContain(token);
    expect(read).toContain('<secret:github-token#');
  });

  it('posts no seeded value to Slack, whatever the message quotes', async () => {
    const slack = await recorder(() => ({ status: 200, body: { ok: true, channel: 'C1', ts: '1.000001' } }));
    const client = slackClient(slack.url);

    await client.chat.postMessage({
      channel: 'C1',
      text: Object.values(SOURCES).join('\n'),
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: SOURCES.issue ?? '' } }],
    });

    expect(slack.bodies).toHaveLength(1);
    expect(leaked(slack.bodies.join('\n'))).toEqual([]);
    expect(slack.bodies[0]).toContain('<secret:aws-access-key#');
    expect(slack.bodies[0]).toContain('<pii:card#');
  });

  it('shares no file with a seeded value: the upload that bypasses the Web API call is redacted too', async () => {
    const slack = await recorder((request) => ({
      status: 200,
      body: request.url?.includes('getUploadURLExternal')
        ? { ok: true, upload_url: `${slackUrl}/upload`, file_id: 'F1' }
        : { ok: true, files: [{ id: 'F1' }] },
    }));
    const slackUrl = slack.url;
    const client = slackClient(slack.url);

    await client.files.uploadV2({
      channel_id: 'C1',
      filename: 'prd.md',
      title: `PRD for ${v.email}`,
      content: Object.values(SOURCES).join('\n'),
    });

    expect(slack.bodies.length).toBeGreaterThanOrEqual(3);
    expect(leaked(slack.bodies.join('\n'))).toEqual([]);
    expect(slack.bodies.join('\n')).toContain('<secret:github-token#');
  });

  it('opens no pull request and writes no comment with a seeded value', async () => {
    const github = await recorder(() => ({
      status: 201,
      body: { id: 1, number: 7, html_url: 'http://example.invalid/pr/7' },
    }));
    const octokit = withRedaction(new Octokit({ baseUrl: github.url, auth: 'test-token' }), SETTINGS);

    await octokit.rest.pulls.create({
      owner: 'demo',
      repo: 'webshop',
      head: 'agents/fix',
      base: 'main',
      title: `Fix login for ${v.email}`,
      body: SOURCES.file ?? '',
    });
    await octokit.rest.issues.createComment({
      owner: 'demo',
      repo: 'webshop',
      issue_number: 7,
      body: SOURCES.logs ?? '',
    });

    expect(github.bodies).toHaveLength(2);
    expect(leaked(github.bodies.join('\n'))).toEqual([]);
    expect(github.bodies[0]).toContain('<pii:email#');
    expect(github.bodies[1]).toContain('<secret:aws-secret-key#');
  });

  it('stores no seeded value in any DynamoDB item, with the placeholders where the values were', async () => {
    const db = await startDynalite('Redaction');
    closers.push(db.close);
    const previous = process.env.REDACTION;
    process.env.REDACTION = JSON.stringify(SETTINGS);
    closers.push(async () => {
      if (previous === undefined) delete process.env.REDACTION;
      else process.env.REDACTION = previous;
    });
    const store = new DynamoTranscriptStore({ client: db.client, tableName: db.tableName });

    await store.save('conv-1', 'session-1', 1, [
      { role: 'user', content: [{ type: 'text', text: Object.values(SOURCES).join('\n') }] },
    ]);

    const { Items = [] } = await db.client.send(new ScanCommand({ TableName: db.tableName }));
    // Transcripts are stored gzipped: the items are read raw and their data unpacked.
    const stored = [
      JSON.stringify(Items),
      ...Items.map((item) => (item.data?.B ? gunzipSync(item.data.B).toString('utf8') : '')),
    ].join('\n');
    expect(Items.length).toBeGreaterThan(0);
    expect(leaked(stored)).toEqual([]);
    expect(stored).toContain('<secret:github-token#');
    expect(stored).toContain('<pii:iban#');
  });
});
