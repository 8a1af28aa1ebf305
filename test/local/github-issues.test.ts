import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startTestGitHub, type TestGitHub } from './github-harness.ts';
import { assertMatchesSchema } from './github-openapi.ts';

const owner = 'acme';
const repo = 'shop';
let gh: TestGitHub;

beforeAll(async () => {
  gh = await startTestGitHub();
  await gh.emulator.store.createRepository({
    owner,
    name: repo,
    files: { 'a.txt': 'a\n' },
    collaborators: { dev: 'write', reporter: 'read' },
  });
});
afterAll(() => gh.close());

describe('the GitHub emulator: issues, comments and labels', () => {
  it('opens an issue with labels and reads it back', async () => {
    const created = await gh
      .as('dev')
      .rest.issues.create({ owner, repo, title: 'Totals wrong', body: 'See cart', labels: ['bug', 'agent'] });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/issues', 201, created.data);
    expect(created.data).toMatchObject({
      title: 'Totals wrong',
      state: 'open',
      user: { login: 'dev' },
      author_association: 'COLLABORATOR',
    });
    expect(created.data.labels.map((l) => (typeof l === 'string' ? l : l.name))).toEqual(['bug', 'agent']);
    const read = await gh.octokit.rest.issues.get({ owner, repo, issue_number: created.data.number });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/issues/{issue_number}', 200, read.data);
    expect(read.data.body).toBe('See cart');
  });

  it('drops the labels of someone who may not triage, as GitHub does', async () => {
    const created = await gh
      .as('reporter')
      .rest.issues.create({ owner, repo, title: 'Please fix', labels: ['agent'] });
    expect(created.data.labels).toEqual([]);
  });

  it('lists issues by state and label, newest first', async () => {
    const open = await gh.octokit.rest.issues.listForRepo({ owner, repo, labels: 'agent' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/issues', 200, open.data);
    expect(open.data.map((i) => i.title)).toEqual(['Totals wrong']);
    const all = await gh.octokit.rest.issues.listForRepo({ owner, repo, state: 'all' });
    expect(all.data.map((i) => i.number)).toEqual([...all.data.map((i) => i.number)].sort((a, b) => b - a));
  });

  it('edits, closes and reopens an issue', async () => {
    const { data: issue } = await gh.octokit.rest.issues.create({ owner, repo, title: 'Old title' });
    const edited = await gh.octokit.rest.issues.update({
      owner,
      repo,
      issue_number: issue.number,
      title: 'New title',
      state: 'closed',
    });
    assertMatchesSchema('PATCH', '/repos/{owner}/{repo}/issues/{issue_number}', 200, edited.data);
    expect(edited.data).toMatchObject({ title: 'New title', state: 'closed', state_reason: 'completed' });
    expect(edited.data.closed_at).not.toBeNull();
    const reopened = await gh.octokit.rest.issues.update({
      owner,
      repo,
      issue_number: issue.number,
      state: 'open',
    });
    expect(reopened.data).toMatchObject({ state: 'open', closed_at: null, state_reason: 'reopened' });
  });

  it('refuses an edit of someone else’s issue by a reader', async () => {
    const { data: issue } = await gh.octokit.rest.issues.create({ owner, repo, title: 'Mine' });
    const result = await failure(
      gh.as('reporter').rest.issues.update({ owner, repo, issue_number: issue.number, title: 'Theirs' }),
    );
    expect(result.status).toBe(403);
  });

  it('adds, lists and edits comments, counting them on the issue', async () => {
    const { data: issue } = await gh.octokit.rest.issues.create({ owner, repo, title: 'Discuss' });
    const comment = await gh
      .as('reporter')
      .rest.issues.createComment({ owner, repo, issue_number: issue.number, body: 'first' });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', 201, comment.data);
    await gh.octokit.rest.issues.createComment({ owner, repo, issue_number: issue.number, body: 'second' });
    const list = await gh.octokit.rest.issues.listComments({ owner, repo, issue_number: issue.number });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments', 200, list.data);
    expect(list.data.map((c) => [c.user?.login, c.body])).toEqual([
      ['reporter', 'first'],
      ['slack-agents-sandbox[bot]', 'second'],
    ]);
    const edited = await gh
      .as('reporter')
      .rest.issues.updateComment({ owner, repo, comment_id: comment.data.id, body: 'first, edited' });
    assertMatchesSchema('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', 200, edited.data);
    expect(edited.data.body).toBe('first, edited');
    expect(
      (await gh.octokit.rest.issues.get({ owner, repo, issue_number: issue.number })).data.comments,
    ).toBe(2);
    const empty = await failure(
      gh.octokit.rest.issues.createComment({ owner, repo, issue_number: issue.number, body: '' }),
    );
    expect(empty.status).toBe(422);
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', 422, empty.data);
  });

  it('adds labels (creating unknown ones) and removes one', async () => {
    const { data: issue } = await gh.octokit.rest.issues.create({ owner, repo, title: 'Label me' });
    const added = await gh.octokit.rest.issues.addLabels({
      owner,
      repo,
      issue_number: issue.number,
      labels: ['bug', 'needs-fix'],
    });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/issues/{issue_number}/labels', 200, added.data);
    expect(added.data.map((l) => [l.name, l.default])).toEqual([
      ['bug', true],
      ['needs-fix', false],
    ]);
    const removed = await gh.octokit.rest.issues.removeLabel({
      owner,
      repo,
      issue_number: issue.number,
      name: 'bug',
    });
    assertMatchesSchema(
      'DELETE',
      '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
      200,
      removed.data,
    );
    expect(removed.data.map((l) => l.name)).toEqual(['needs-fix']);
    const missing = await failure(
      gh.octokit.rest.issues.removeLabel({ owner, repo, issue_number: issue.number, name: 'bug' }),
    );
    expect(missing.status).toBe(404);
    assertMatchesSchema(
      'DELETE',
      '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
      404,
      missing.data,
    );
  });

  it('pages long lists with Link headers that Octokit paginate follows', async () => {
    const { data: issue } = await gh.octokit.rest.issues.create({ owner, repo, title: 'Long thread' });
    for (let i = 1; i <= 25; i++) {
      await gh.octokit.rest.issues.createComment({ owner, repo, issue_number: issue.number, body: `c${i}` });
    }
    const first = await gh.octokit.rest.issues.listComments({
      owner,
      repo,
      issue_number: issue.number,
      per_page: 10,
    });
    expect(first.data).toHaveLength(10);
    expect(first.headers.link).toContain('rel="next"');
    const all = await gh.octokit.paginate(gh.octokit.rest.issues.listComments, {
      owner,
      repo,
      issue_number: issue.number,
      per_page: 10,
    });
    expect(all.map((c) => c.body)).toEqual(Array.from({ length: 25 }, (_, i) => `c${i + 1}`));
  });

  it('answers 404 for an issue that does not exist', async () => {
    const result = await failure(gh.octokit.rest.issues.get({ owner, repo, issue_number: 999 }));
    expect(result.status).toBe(404);
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/issues/{issue_number}', 404, result.data);
  });

  it('says who has write access to the repository', async () => {
    const dev = await gh.octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: 'dev' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/collaborators/{username}/permission', 200, dev.data);
    expect(dev.data).toMatchObject({ permission: 'write', user: { login: 'dev' } });
    const reporter = await gh.octokit.rest.repos.getCollaboratorPermissionLevel({
      owner,
      repo,
      username: 'reporter',
    });
    expect(reporter.data.permission).toBe('read');
    const stranger = await failure(
      gh.octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: 'stranger' }),
    );
    expect(stranger.status).toBe(404);
  });
});
