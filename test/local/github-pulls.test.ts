import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startTestGitHub, type TestGitHub } from './github-harness.ts';
import { assertMatchesSchema } from './github-openapi.ts';

const owner = 'acme';
const repo = 'shop';
let gh: TestGitHub;
let mainSha: string;

beforeAll(async () => {
  gh = await startTestGitHub();
  const record = await gh.emulator.store.createRepository({
    owner,
    name: repo,
    files: { 'src/total.ts': 'export const rate = 19;\n' },
    collaborators: { maintainer: 'admin' },
  });
  mainSha = (await record.git.resolveCommit('main')) ?? '';
});
afterAll(() => gh.close());

/** A branch one commit ahead of main, made through the Git Data API. */
async function branchWithChange(branch: string, content: string) {
  const { data: base } = await gh.octokit.rest.git.getCommit({ owner, repo, commit_sha: mainSha });
  const { data: tree } = await gh.octokit.rest.git.createTree({
    owner,
    repo,
    base_tree: base.tree.sha,
    tree: [{ path: 'src/total.ts', mode: '100644', type: 'blob', content }],
  });
  const { data: commit } = await gh.octokit.rest.git.createCommit({
    owner,
    repo,
    message: `Change on ${branch}`,
    tree: tree.sha,
    parents: [mainSha],
  });
  await gh.octokit.rest.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: commit.sha });
  return commit.sha;
}

describe('the GitHub emulator: pull requests', () => {
  it('opens a draft pull request whose number follows the issues', async () => {
    const head = await branchWithChange('agents/bug-1', 'export const rate = 7;\n');
    const { data: issue } = await gh.octokit.rest.issues.create({ owner, repo, title: 'An issue first' });
    const created = await gh.octokit.rest.pulls.create({
      owner,
      repo,
      head: 'agents/bug-1',
      base: 'main',
      title: 'Fix the rate',
      body: 'Findings...',
      draft: true,
    });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/pulls', 201, created.data);
    expect(created.data).toMatchObject({
      number: issue.number + 1,
      draft: true,
      state: 'open',
      title: 'Fix the rate',
      body: 'Findings...',
      head: { ref: 'agents/bug-1', sha: head, label: 'acme:agents/bug-1' },
      base: { ref: 'main', sha: mainSha },
      commits: 1,
      additions: 1,
      deletions: 1,
      changed_files: 1,
      merged: false,
    });
    const read = await gh.octokit.rest.pulls.get({ owner, repo, pull_number: created.data.number });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 200, read.data);
    const asIssue = await gh.octokit.rest.issues.get({ owner, repo, issue_number: created.data.number });
    expect(asIssue.data.pull_request?.url).toBe(created.data.url);
  });

  it('lists pull requests by state and by head as owner:branch', async () => {
    await branchWithChange('agents/bug-2', 'export const rate = 8;\n');
    const { data: pull } = await gh.octokit.rest.pulls.create({
      owner,
      repo,
      head: 'acme:agents/bug-2',
      base: 'main',
      title: 'Two',
    });
    const byHead = await gh.octokit.rest.pulls.list({ owner, repo, head: 'acme:agents/bug-2' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/pulls', 200, byHead.data);
    expect(byHead.data.map((p) => p.number)).toEqual([pull.number]);
    expect((await gh.octokit.rest.pulls.list({ owner, repo, head: 'other:agents/bug-2' })).data).toEqual([]);
    await gh.octokit.rest.pulls.update({ owner, repo, pull_number: pull.number, state: 'closed' });
    expect((await gh.octokit.rest.pulls.list({ owner, repo, head: 'acme:agents/bug-2' })).data).toEqual([]);
    const closed = await gh.octokit.rest.pulls.list({ owner, repo, state: 'closed' });
    expect(closed.data.map((p) => p.number)).toEqual([pull.number]);
  });

  it('edits a pull request title and body', async () => {
    await branchWithChange('agents/bug-3', 'export const rate = 9;\n');
    const { data: pull } = await gh.octokit.rest.pulls.create({
      owner,
      repo,
      head: 'agents/bug-3',
      base: 'main',
      title: 'Three',
    });
    const edited = await gh.octokit.rest.pulls.update({
      owner,
      repo,
      pull_number: pull.number,
      title: 'Three, edited',
      body: 'Build: green',
    });
    assertMatchesSchema('PATCH', '/repos/{owner}/{repo}/pulls/{pull_number}', 200, edited.data);
    expect(edited.data).toMatchObject({ title: 'Three, edited', body: 'Build: green' });
  });

  it('lists the files a pull request changes, with their patches', async () => {
    await branchWithChange('agents/bug-4', 'export const rate = 10;\n');
    const { data: pull } = await gh.octokit.rest.pulls.create({
      owner,
      repo,
      head: 'agents/bug-4',
      base: 'main',
      title: 'Four',
    });
    const files = await gh.octokit.rest.pulls.listFiles({ owner, repo, pull_number: pull.number });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/files', 200, files.data);
    expect(files.data).toMatchObject([
      {
        filename: 'src/total.ts',
        status: 'modified',
        additions: 1,
        deletions: 1,
        patch: '@@ -1 +1 @@\n-export const rate = 19;\n+export const rate = 10;',
      },
    ]);
  });

  it('refuses a pull request with no commits between base and head', async () => {
    await gh.octokit.rest.git.createRef({ owner, repo, ref: 'refs/heads/agents/empty', sha: mainSha });
    const result = await failure(
      gh.octokit.rest.pulls.create({ owner, repo, head: 'agents/empty', base: 'main', title: 'Nothing' }),
    );
    expect(result).toMatchObject({
      status: 422,
      data: {
        message: 'Validation Failed',
        errors: [{ message: 'No commits between main and agents/empty' }],
      },
    });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/pulls', 422, result.data);
  });

  it('refuses a second open pull request for the same head and an unknown head', async () => {
    await branchWithChange('agents/bug-5', 'export const rate = 11;\n');
    await gh.octokit.rest.pulls.create({ owner, repo, head: 'agents/bug-5', base: 'main', title: 'Five' });
    const again = await failure(
      gh.octokit.rest.pulls.create({ owner, repo, head: 'agents/bug-5', base: 'main', title: 'Five again' }),
    );
    expect(again).toMatchObject({
      status: 422,
      data: { errors: [{ message: 'A pull request already exists for acme:agents/bug-5.' }] },
    });
    const unknown = await failure(
      gh.octokit.rest.pulls.create({ owner, repo, head: 'agents/none', base: 'main', title: 'x' }),
    );
    expect(unknown).toMatchObject({ status: 422, data: { errors: [{ field: 'head', code: 'invalid' }] } });
  });

  it('answers 404 for a number that is an issue, not a pull request', async () => {
    const { data: issue } = await gh.octokit.rest.issues.create({ owner, repo, title: 'Just an issue' });
    const result = await failure(gh.octokit.rest.pulls.get({ owner, repo, pull_number: issue.number }));
    expect(result.status).toBe(404);
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 404, result.data);
  });

  it('takes reviews from others and refuses the author approving their own pull request', async () => {
    await branchWithChange('agents/bug-6', 'export const rate = 12;\n');
    const { data: pull } = await gh.octokit.rest.pulls.create({
      owner,
      repo,
      head: 'agents/bug-6',
      base: 'main',
      title: 'Six',
    });
    const own = await failure(
      gh.octokit.rest.pulls.createReview({ owner, repo, pull_number: pull.number, event: 'APPROVE' }),
    );
    expect(own).toMatchObject({ status: 422, data: { message: 'Can not approve your own pull request' } });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', 422, own.data);
    const approved = await gh
      .as('maintainer')
      .rest.pulls.createReview({ owner, repo, pull_number: pull.number, event: 'APPROVE', body: 'LGTM' });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', 200, approved.data);
    expect(approved.data).toMatchObject({
      state: 'APPROVED',
      body: 'LGTM',
      user: { login: 'maintainer' },
      commit_id: pull.head.sha,
    });
    const list = await gh.octokit.rest.pulls.listReviews({ owner, repo, pull_number: pull.number });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', 200, list.data);
    expect(list.data.map((r) => r.state)).toEqual(['APPROVED']);
  });
});
