import { runCommitter } from '../../lambdas/workflows/issue-pipeline/committer.ts';
import type { IssueStateStore } from '../../lambdas/workflows/issue-pipeline/ports.ts';
import type { IssueState } from '../../lambdas/workflows/issue-pipeline/state.ts';
import type { TestGitHub } from '../local/github-harness.ts';

/** A pull request the Committer opened, as GitHub holds it, and the commit message it recorded. */
export interface CommittedPullRequest {
  title: string;
  body: string;
  message: string | null;
}

const repository = { owner: 'acme', repo: 'committed' };

/**
 * The Committer on `gh`: each state document it is given gets a work branch of its own, one
 * commit over main, that the gate is taken to have read; the Committer runs over an in-memory
 * store, and the pull request it opened is read back from GitHub. Throws when none was opened.
 */
export function committerOn(gh: TestGitHub): (state: IssueState) => Promise<CommittedPullRequest> {
  const main = gh.emulator.store
    .createRepository({
      owner: repository.owner,
      name: repository.repo,
      files: { 'src/a.ts': 'export const a = 1;\n' },
    })
    .then(async (record) => (await record.git.resolveCommit('main')) ?? '');
  let branches = 0;
  return async (state) => {
    branches += 1;
    const branch = `agents/committed-${branches}`;
    const head = await commitOn(gh, branch, await main, `export const a = ${branches + 1};\n`);
    let saved = structuredClone(state);
    saved.commit.branch = branch;
    saved.commit.checked_head = head;
    const store = {
      load: async () => structuredClone(saved),
      save: async (_: string, next: IssueState) => {
        saved = structuredClone(next);
      },
    } as unknown as IssueStateStore;
    const result = await runCommitter(`committed-${branches}`, {
      octokit: gh.octokit,
      store,
      repository,
      draft: true,
      triggerLabel: 'agent',
    });
    if (!result.opened) throw new Error(`no pull request: ${result.reason}`);
    const { data: pulls } = await gh.octokit.rest.pulls.list({
      ...repository,
      state: 'open',
      head: `${repository.owner}:${branch}`,
    });
    const [pull] = pulls;
    if (pull === undefined) throw new Error(`no open pull request from ${branch}`);
    return { title: pull.title, body: pull.body ?? '', message: saved.commit.message };
  };
}

/** Creates `branch` at a commit over `parent` that sets src/a.ts to `content`; returns the commit. */
async function commitOn(gh: TestGitHub, branch: string, parent: string, content: string): Promise<string> {
  const { data: base } = await gh.octokit.rest.git.getCommit({ ...repository, commit_sha: parent });
  const { data: tree } = await gh.octokit.rest.git.createTree({
    ...repository,
    base_tree: base.tree.sha,
    tree: [{ path: 'src/a.ts', mode: '100644', type: 'blob', content }],
  });
  const { data: commit } = await gh.octokit.rest.git.createCommit({
    ...repository,
    message: content,
    tree: tree.sha,
    parents: [parent],
  });
  await gh.octokit.rest.git.createRef({ ...repository, ref: `refs/heads/${branch}`, sha: commit.sha });
  return commit.sha;
}
