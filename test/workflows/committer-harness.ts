import { afterAll, beforeAll } from 'vitest';
import { runCommitter } from '../../lambdas/workflows/issue-pipeline/committer.ts';
import type { IssueStateStore } from '../../lambdas/workflows/issue-pipeline/ports.ts';
import type { IssueState } from '../../lambdas/workflows/issue-pipeline/state.ts';
import { startTestGitHub, type TestGitHub } from '../local/github-harness.ts';

/** A pull request the Committer opened, as GitHub holds it, and the commit message it recorded. */
export interface CommittedPullRequest {
  title: string;
  body: string;
  message: string | null;
}

const repository = { owner: 'acme', repo: 'committed' };

/**
 * The Committer on `gh`: each state document it is given gets a work branch of its own, one
 * commit over main, that the build is taken to have built and the gate to have read; the
 * Committer runs over an in-memory
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
    const head = await commitOn(
      gh,
      repository,
      { branch, parent: await main, create: true },
      `export const a = ${branches + 1};\n`,
    );
    let saved = structuredClone(state);
    saved.commit.branch = branch;
    saved.commit.checked_head = head;
    saved.build.completed = true;
    saved.build.built_head = head;
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

/**
 * A commit over `parent` in `repo` that sets src/a.ts to `content`, on `branch`: the branch is
 * created there (`create`), or moved to it by force. Returns the commit.
 */
export async function commitOn(
  gh: TestGitHub,
  repo: { owner: string; repo: string },
  at: { branch: string; parent: string; create: boolean },
  content: string,
): Promise<string> {
  const { data: base } = await gh.octokit.rest.git.getCommit({ ...repo, commit_sha: at.parent });
  const { data: tree } = await gh.octokit.rest.git.createTree({
    ...repo,
    base_tree: base.tree.sha,
    tree: [{ path: 'src/a.ts', mode: '100644', type: 'blob', content }],
  });
  const { data: commit } = await gh.octokit.rest.git.createCommit({
    ...repo,
    message: content,
    tree: tree.sha,
    parents: [at.parent],
  });
  if (at.create)
    await gh.octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${at.branch}`, sha: commit.sha });
  else
    await gh.octokit.rest.git.updateRef({ ...repo, ref: `heads/${at.branch}`, sha: commit.sha, force: true });
  return commit.sha;
}

/**
 * `committerOn` over a test GitHub of the calling `describe` (started before its tests, closed
 * after them): the getter gives the Committer once started.
 */
export function useCommitter(): () => (state: IssueState) => Promise<CommittedPullRequest> {
  let gh: TestGitHub | undefined;
  let opened: ((state: IssueState) => Promise<CommittedPullRequest>) | undefined;
  beforeAll(async () => {
    gh = await startTestGitHub();
    opened = committerOn(gh);
  });
  afterAll(() => gh?.close());
  return () => {
    if (opened === undefined) throw new Error('the Committer is used before its GitHub started');
    return opened;
  };
}
