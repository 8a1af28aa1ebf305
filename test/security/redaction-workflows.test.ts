import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { placeholder } from '../../lambdas/redaction/placeholder.ts';
import { channelConversationId } from '../../lambdas/workflows/channel-conversations/model.ts';
import { DynamoIssueStateStore } from '../../lambdas/workflows/issue-pipeline/adapters/dynamo-issue-state.ts';
import { pagerdutyIncident, pagerdutyRequest } from '../ingress/webhooks.ts';
import { pipelineIdFor } from '../sandbox/issue-harness.ts';
import { slashPrd } from '../sandbox/requirements-harness.ts';
import { eventually } from '../support/eventually.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';
import {
  CHANNELS,
  KINDS,
  leaked,
  missingPlaceholders,
  PAGERDUTY_SERVICE,
  type RedactionWorld,
  SOURCES,
  startRedactionWorld,
  storedItems,
  v,
} from './redaction-sandbox.ts';
import { REPO } from './support.ts';

/**
 * Secrets and personal data of every class, seeded into logs, a repository file, an issue body,
 * a PagerDuty payload and Slack messages, with every workflow run once in one sandbox by a
 * scripted model that quotes them in each of its answers: no value reaches a model request, a
 * Slack call or shared file, a pull request, a GitHub comment or a DynamoDB item, and the typed
 * placeholders stand where the values were (docs/security-redaction.md).
 */

let world: RedactionWorld;
const conversations: Record<'bug' | 'interview' | 'incident' | 'pipeline', string> = {
  bug: '',
  interview: '',
  incident: '',
  pipeline: '',
};
/** The channel conversation: no kernel record, and its prompts name no conversation id. */
let channelConversation = '';
let issue = 0;

type Execution = { status: string; error?: string; cause?: string };

async function runEveryWorkflow(): Promise<void> {
  const { sandbox } = world;
  const driver = sandboxDriver(() => sandbox);
  const { api } = driver;
  const store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
  const documents = new DynamoIssueStateStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
  const ended = (id: string) =>
    eventually(
      () => api<Execution>(`/sandbox/executions/${id}`),
      (execution) => execution.status !== 'RUNNING',
      `${id} to end`,
    ).then(({ status, error, cause }) => `${status} ${error ?? ''} ${cause ?? ''}`.trim());

  // Bug investigation: a report in Slack; the investigator reads it back and posts findings.
  const report = await driver.post(CHANNELS.reports, 'U_REPORTER', SOURCES.slack);
  conversations.bug = conversationIdFor('bug_investigation', CHANNELS.reports, report);
  // Channel conversation: a mention in a channel no workflow owns.
  const mention = await driver.mention(CHANNELS.general, 'U_ALICE', SOURCES.slack);
  channelConversation = channelConversationId(CHANNELS.general, mention);
  // Requirements interview: `/prd` with the idea; the PRD and its analysis are shared as files.
  conversations.interview = await slashPrd({ driver }, 'trigger-redaction', SOURCES.slack);
  // Incident: a PagerDuty incident whose title carries a token; the triage reads the logs.
  const alert = pagerdutyIncident({ incidentId: 'PDREDACT', at: new Date() }) as {
    event: { data: { title: string; service: { id: string } } };
  };
  alert.event.data.title = SOURCES.pagerduty;
  alert.event.data.service.id = PAGERDUTY_SERVICE;
  const body = JSON.stringify(alert);
  const delivered = await fetch(`${sandbox.url}/pagerduty/events`, {
    method: 'POST',
    headers: pagerdutyRequest(body, [sandbox.webhookSecrets.pagerduty]).headers as Record<string, string>,
    body,
  });
  expect(delivered.status).toBe(202);
  // Issue pipeline: an issue labelled `agent`; triage reads the committed `.env`, a PR follows.
  issue = (
    await api<{ number: number }>('/sandbox/github/issues', {
      repo: `${REPO.owner}/${REPO.repo}`,
      title: 'Checkout totals are wrong for one customer',
      body: SOURCES.issue,
      labels: ['agent'],
    })
  ).number;
  conversations.pipeline = pipelineIdFor(issue);

  await eventually(
    () => store.getConversation(conversations.bug, { consistent: true }),
    (conversation) => conversation?.wait !== undefined && conversation.phase !== 'investigating',
    'the bug investigation to post its findings and wait',
  );
  await eventually(
    () => driver.messages(CHANNELS.general),
    (messages) => messages.some((message) => message.bot),
    'the channel answer',
  );
  expect(await ended(conversations.interview)).toBe('SUCCEEDED');
  const incidents = await eventually(
    async () =>
      (await api<{ conversations: { id: string; workflow: string }[] }>('/sandbox/conversations'))
        .conversations,
    (list) => list.some((c) => c.workflow === 'incident_investigation'),
    'the PagerDuty incident to start',
  );
  conversations.incident = incidents.find((c) => c.workflow === 'incident_investigation')?.id ?? '';
  expect(await ended(conversations.incident)).toBe('SUCCEEDED');
  const state = await eventually(
    () => documents.load(conversations.pipeline),
    (document) => document.pipeline.status !== 'in_progress',
    'the issue pipeline to end',
  );
  expect(state.pipeline.status).toBe('completed');
  await sandbox.idle();
}

beforeAll(async () => {
  world = await startRedactionWorld();
  await runEveryWorkflow();
});

afterAll(async () => {
  await world?.stop();
  expect(world?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
});

describe('secrets and personal data seeded where every workflow reads', () => {
  it('reach no model request, while the placeholders stand in the prompts', () => {
    const requests = world.requests.map((request) => JSON.stringify(request.body));
    for (const id of Object.values(conversations))
      expect(
        requests.some((request) => request.includes(id)),
        `a request of ${id}`,
      ).toBe(true);
    for (const request of requests) expect(leaked(request)).toEqual([]);
    expect(missingPlaceholders(requests.join('\n'))).toEqual([]);
  });

  it('reach no Slack call and no shared file, while the placeholders stand in the posts', () => {
    const slack = world.sandbox.slack.workspace;
    const calls = slack.apiCalls().map((call) => ({ method: call.method, args: JSON.stringify(call.args) }));
    const files = slack.files().map((file) => `${file.title}\n${file.content}`);
    expect(files.length).toBeGreaterThanOrEqual(2);
    const leaks = calls.flatMap(({ method, args }) => leaked(args).map((value) => `${method}: ${value}`));
    expect(leaks).toEqual([]);
    expect(leaked(files.join('\n'))).toEqual([]);
    // Each workflow's posts: the bug's findings go to its report thread or the summaries channel.
    const workflows = [
      [CHANNELS.reports, CHANNELS.summaries],
      [CHANNELS.product],
      [CHANNELS.incidents],
      [CHANNELS.general],
    ];
    for (const channels of workflows) {
      const posts = calls.filter(({ args }) =>
        channels.some((channel) => args.includes(`"channel":"${channel}"`)),
      );
      const text = posts.map(({ args }) => args).join('\n');
      expect(missingPlaceholders(text), `the posts in ${channels.join(', ')}`).toEqual([]);
    }
    for (const file of files) expect(missingPlaceholders(file)).toEqual([]);
  });

  it('reach no pull request, commit message or comment, while the placeholders stand in the pull request', async () => {
    const { github } = world;
    const { data: pulls } = await github.rest.pulls.list({ ...REPO, state: 'all' });
    const { data: comments } = await github.rest.issues.listComments({ ...REPO, issue_number: issue });
    const pull = { ...REPO, pull_number: pulls[0]?.number ?? 0 };
    const { data: reviews } = await github.rest.pulls.listReviews(pull);
    // The branch's one commit is the writer's: its message came from the model.
    const head = await github.rest.git.getCommit({ ...REPO, commit_sha: pulls[0]?.head.sha ?? '' });
    const commits = [head.data.message];
    expect(pulls).toHaveLength(1);
    expect(comments.length).toBeGreaterThan(0);
    const written = [
      ...pulls.map((pull) => `${pull.title}\n${pull.body}`),
      ...comments.map((comment) => comment.body ?? ''),
      ...reviews.map((review) => review.body),
      ...commits,
    ].join('\n');
    expect(leaked(written)).toEqual([]);
    expect(commits.join('\n')).toContain('<secret:github-token#');
    expect(missingPlaceholders(pulls[0]?.body ?? '')).toEqual([]);
  });

  it('reach no DynamoDB item, while the placeholders stand in the stored transcripts and records', async () => {
    const items = await storedItems(world.sandbox);
    const text = items.map((item) => item.text).join('\n');
    expect(items.length).toBeGreaterThan(0);
    expect(leaked(text)).toEqual([]);
    expect(missingPlaceholders(text)).toEqual([]);
  });

  it("counts what every door replaced in each conversation's ledger, by kind, and the console's API shows it", async () => {
    const { api } = sandboxDriver(() => world.sandbox);
    for (const id of [...Object.values(conversations), channelConversation]) {
      const { conversation } = await api<{
        conversation: {
          ledger: {
            redactedSecrets?: number;
            redactedPii?: number;
            redactedKinds?: Record<string, number>;
            inputTokens?: number;
            lambdaMs?: number;
          };
        };
      }>(`/sandbox/conversations/${encodeURIComponent(id)}`);
      // A channel conversation keeps a ledger of its own (it has no kernel record): the model's
      // tokens and the responder's time are in it too.
      if (id === channelConversation) {
        expect(conversation.ledger.inputTokens, id).toBeGreaterThan(0);
        expect(conversation.ledger.lambdaMs, id).toBeGreaterThan(0);
      }
      const { redactedKinds = {}, redactedSecrets, redactedPii } = conversation.ledger;
      // Each seeded kind was replaced somewhere in every conversation (the model quotes them all).
      expect(Object.keys(redactedKinds), id).toEqual(expect.arrayContaining(KINDS));
      const sum = (family: string) =>
        Object.entries(redactedKinds)
          .filter(([kind]) => kind.startsWith(`${family}:`))
          .reduce((total, [, count]) => total + count, 0);
      expect(redactedSecrets, id).toBe(sum('secret'));
      expect(redactedPii, id).toBe(sum('pii'));
      // Counts, never the values.
      expect(leaked(JSON.stringify(conversation)), id).toEqual([]);
    }
    // A tool call's line in the timeline says how many values its result holds redacted, and of which kinds.
    const lines = world.sandbox.slack.workspace.apiCalls().map((call) => JSON.stringify(call.args));
    const logLines = lines.filter((line) => line.includes('Querying payment-api logs'));
    expect(
      logLines.some((line) => / · redacted \d+: \d+ [a-z-]+/.test(line)),
      logLines.join('\n'),
    ).toBe(true);
  });

  it('gives a value the same placeholder in the prompt, the Slack posts and the stored items of one conversation, another in the next', async () => {
    const calls = world.sandbox.slack.workspace.apiCalls().map((call) => JSON.stringify(call.args));
    const items = await storedItems(world.sandbox);
    const seen = (id: string, channels: readonly string[]) => ({
      prompts: world.requests.map((r) => JSON.stringify(r.body)).filter((body) => body.includes(id)),
      posts: calls.filter((args) => channels.some((channel) => args.includes(`"channel":"${channel}"`))),
      stored: items.filter((item) => item.pk.endsWith(id)).map((item) => item.text),
    });
    const tagged = (id: string) => placeholder({ family: 'pii', kind: 'email' }, v.email, id);
    const bug = seen(conversations.bug, [CHANNELS.reports, CHANNELS.summaries]);
    const interview = seen(conversations.interview, [CHANNELS.product]);
    expect(tagged(conversations.bug)).not.toBe(tagged(conversations.interview));
    for (const [conversation, id] of [
      [bug, conversations.bug],
      [interview, conversations.interview],
    ] as const) {
      // Slack's mrkdwn escapes the angle brackets: the kind and tag are what must agree.
      const mine = tagged(id).slice(1, -1);
      const other = tagged(id === conversations.bug ? conversations.interview : conversations.bug).slice(
        1,
        -1,
      );
      for (const [door, texts] of Object.entries(conversation)) {
        expect(texts.length, `${id}: ${door}`).toBeGreaterThan(0);
        expect(texts.join('\n'), `${id}: ${door}`).toContain(mine);
        expect(texts.join('\n'), `${id}: ${door}`).not.toContain(other);
      }
    }
  });
});
