import { randomBytes } from 'node:crypto';
import examples from '@octokit/webhooks-examples';
import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubEmulator } from '../../local/github/emulator.ts';
import { until } from '../support/eventually.ts';
import { startReceiver, startTestGitHub, type TestGitHub } from './github-harness.ts';
import { assertWebhookMatchesSchema } from './github-openapi.ts';

const owner = 'acme';
const repo = 'shop';
const secret = randomBytes(16).toString('hex');
let gh: TestGitHub;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  gh = await startTestGitHub({ webhookUrl: receiver.url, webhookSecret: secret });
  await gh.emulator.store.createRepository({
    owner,
    name: repo,
    files: { 'a.txt': 'a\n' },
    collaborators: { dev: 'write' },
  });
});
afterAll(async () => {
  await gh.close();
  await receiver.close();
});

type Payload = Record<string, unknown> & { action: string };

/** What arrived since `from`, once every queued delivery was attempted. */
async function deliveredSince(from: number) {
  await gh.emulator.webhooks.settled();
  return receiver.received.slice(from).map((r) => ({
    ...r,
    event: String(r.headers['x-github-event']),
    payload: JSON.parse(r.body) as Payload,
  }));
}

/**
 * Keys every example of GitHub's for this event and action has, at the top and in `subject`.
 * For an action the examples lack (issues.closed, pull_request.edited), the keys all examples
 * of the event share, which leaves out the action-specific ones (`label`, `changes`).
 */
function exampleKeys(event: string, action: string, subject: string): { top: string[]; inner: string[] } {
  const all =
    (examples as unknown as { name: string; examples: Record<string, unknown>[] }[]).find(
      (e) => e.name === event,
    )?.examples ?? [];
  const forAction = all.filter((p) => p.action === action);
  const found = forAction.length > 0 ? forAction : all;
  if (found.length === 0) throw new Error(`no example of ${event}`);
  const common = (sets: string[][]) => (sets[0] ?? []).filter((k) => sets.every((s) => s.includes(k)));
  return {
    top: common(found.map((p) => Object.keys(p))),
    inner: common(found.map((p) => Object.keys((p[subject] as Record<string, unknown>) ?? {}))),
  };
}

describe('the GitHub emulator: webhooks', () => {
  it('signs every delivery with the secret and names its event and delivery id', async () => {
    const from = receiver.received.length;
    await gh.as('dev').rest.issues.create({ owner, repo, title: 'Signed', labels: ['bug'] });
    const deliveries = await deliveredSince(from);
    expect(deliveries.map((d) => `${d.event}.${d.payload.action}`)).toEqual([
      'issues.opened',
      'issues.labeled',
    ]);
    for (const d of deliveries) {
      expect(d.headers['content-type']).toBe('application/json');
      expect(String(d.headers['x-github-delivery'])).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(await verify(secret, d.body, String(d.headers['x-hub-signature-256']))).toBe(true);
      expect(await verify('another-secret', d.body, String(d.headers['x-hub-signature-256']))).toBe(false);
    }
  });

  it('sends issue, comment and pull request events shaped like GitHub’s schema and examples', async () => {
    const from = receiver.received.length;
    const dev = gh.as('dev');
    const { data: issue } = await dev.rest.issues.create({
      owner,
      repo,
      title: 'Shapes',
      body: 'b',
      labels: ['bug'],
    });
    await dev.rest.issues.update({ owner, repo, issue_number: issue.number, title: 'Shapes, edited' });
    await dev.rest.issues.removeLabel({ owner, repo, issue_number: issue.number, name: 'bug' });
    const { data: comment } = await dev.rest.issues.createComment({
      owner,
      repo,
      issue_number: issue.number,
      body: 'c',
    });
    await dev.rest.issues.updateComment({ owner, repo, comment_id: comment.id, body: 'c2' });
    await dev.rest.issues.update({ owner, repo, issue_number: issue.number, state: 'closed' });
    await dev.rest.issues.update({ owner, repo, issue_number: issue.number, state: 'open' });
    const { data: main } = await gh.octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' });
    const { data: tree } = await gh.octokit.rest.git.createTree({
      owner,
      repo,
      tree: [{ path: 'b.txt', mode: '100644', type: 'blob', content: 'b' }],
    });
    const { data: commit } = await gh.octokit.rest.git.createCommit({
      owner,
      repo,
      message: 'b',
      tree: tree.sha,
      parents: [main.object.sha],
    });
    await gh.octokit.rest.git.createRef({ owner, repo, ref: 'refs/heads/agents/hooks', sha: commit.sha });
    const { data: pull } = await gh.octokit.rest.pulls.create({
      owner,
      repo,
      head: 'agents/hooks',
      base: 'main',
      title: 'PR',
      draft: true,
    });
    await gh.octokit.rest.issues.addLabels({ owner, repo, issue_number: pull.number, labels: ['agent'] });
    await gh.octokit.rest.pulls.update({ owner, repo, pull_number: pull.number, body: 'edited' });
    await dev.rest.pulls.createReview({
      owner,
      repo,
      pull_number: pull.number,
      event: 'REQUEST_CHANGES',
      body: 'Add a test',
    });
    await gh.octokit.rest.pulls.update({ owner, repo, pull_number: pull.number, state: 'closed' });

    const deliveries = await deliveredSince(from);
    expect(deliveries.map((d) => `${d.event}.${d.payload.action}`)).toEqual([
      'issues.opened',
      'issues.labeled',
      'issues.edited',
      'issues.unlabeled',
      'issue_comment.created',
      'issue_comment.edited',
      'issues.closed',
      'issues.reopened',
      'pull_request.opened',
      'pull_request.labeled',
      'pull_request.edited',
      'pull_request_review.submitted',
      'pull_request.closed',
    ]);
    const subjects: Record<string, string> = {
      issues: 'issue',
      issue_comment: 'comment',
      pull_request: 'pull_request',
    };
    for (const { event, payload } of deliveries) {
      assertWebhookMatchesSchema(`${event.replaceAll('_', '-')}-${payload.action}`, payload);
      const subject = subjects[event] ?? '';
      const keys = exampleKeys(event, payload.action, subject);
      expect({ event, action: payload.action, missing: keys.top.filter((k) => !(k in payload)) }).toEqual({
        event,
        action: payload.action,
        missing: [],
      });
      const inner = payload[subject] as Record<string, unknown>;
      expect({ event, subject, missing: keys.inner.filter((k) => !(k in inner)) }).toEqual({
        event,
        subject,
        missing: [],
      });
    }
    const edited = deliveries.find((d) => d.event === 'issues' && d.payload.action === 'edited');
    expect(edited?.payload.changes).toEqual({ title: { from: 'Shapes' } });
    const labeled = deliveries.find((d) => d.event === 'pull_request' && d.payload.action === 'labeled');
    const review = deliveries.find((d) => d.event === 'pull_request_review');
    expect(review?.payload).toMatchObject({
      review: { state: 'changes_requested', body: 'Add a test', user: { login: 'dev' } },
    });
    expect(labeled?.payload).toMatchObject({
      number: pull.number,
      label: { name: 'agent' },
      pull_request: { draft: true },
    });
  });

  it('records a failed delivery with its status and does not retry it', async () => {
    receiver.status = 500;
    const from = receiver.received.length;
    const before = gh.emulator.webhooks.deliveries().length;
    await gh.as('dev').rest.issues.create({ owner, repo, title: 'Refused' });
    await until(() => gh.emulator.webhooks.deliveries().length > before, 'the refused delivery recorded');
    expect(await deliveredSince(from)).toHaveLength(1);
    const recorded = gh.emulator.webhooks.deliveries().slice(before);
    expect(recorded.map((d) => [d.event, d.action, d.status])).toEqual([['issues', 'opened', 500]]);
    receiver.status = 200;
  });

  it('records a delivery to a receiver that cannot be reached, with the reason', async () => {
    const emulator = await startGitHubEmulator({
      baseUrl: 'http://127.0.0.1:9',
      webhookUrl: 'http://127.0.0.1:9/github/events',
    });
    try {
      const record = await emulator.store.createRepository({ owner, name: repo });
      const delivery = await emulator.webhooks.emit('issues', {
        action: 'opened',
        repository: { full_name: record.fullName },
      });
      expect(delivery).toMatchObject({ status: undefined, repository: 'acme/shop' });
      expect(delivery.error).toBeTruthy();
    } finally {
      await emulator.close();
    }
  });
});
