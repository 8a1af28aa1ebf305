import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommitter } from '../../lambdas/workflows/issue-pipeline/committer.ts';
import type { IssueStateStore } from '../../lambdas/workflows/issue-pipeline/ports.ts';
import { type IssueState, initialState } from '../../lambdas/workflows/issue-pipeline/state.ts';
import { startTestGitHub, type TestGitHub } from '../local/github-harness.ts';
import { freshIssueState } from '../support/issue-state.ts';
import { type CommittedPullRequest, commitOn, committerOn } from './committer-harness.ts';

/**
 * The Committer opens the pull request only from the head the protected-paths gate read (and an
 * approver saw), which is the head the build built: a branch that moved in between, or a head
 * no build built, is refused, not opened. Its commit message names the issue and closes it.
 */

const repository = { owner: 'acme', repo: 'committer' };
let gh: TestGitHub;
let mainSha: string;
let opened: (state: IssueState) => Promise<CommittedPullRequest>;

beforeAll(async () => {
  gh = await startTestGitHub();
  opened = committerOn(gh);
  const record = await gh.emulator.store.createRepository({
    owner: repository.owner,
    name: repository.repo,
    files: { 'src/a.ts': 'export const a = 1;\n' },
  });
  mainSha = (await record.git.resolveCommit('main')) ?? '';
});
afterAll(() => gh.close());

function memoryStore(state: IssueState): IssueStateStore & { state: IssueState } {
  const store = {
    state,
    load: async () => structuredClone(store.state),
    save: async (_: string, next: IssueState) => {
      store.state = structuredClone(next);
    },
  };
  return store as unknown as IssueStateStore & { state: IssueState };
}

function stateFor(branch: string, checkedHead: string | null, builtHead = checkedHead): IssueState {
  const state = initialState({
    issue: {
      number: 7,
      title: 'A fix',
      url: 'https://github.test/acme/committer/issues/7',
      type: 'BUG_FIX',
      original_body: 'x',
      labels: ['agent'],
    },
    startedAt: new Date().toISOString(),
    maxAttempts: 3,
    branch,
  });
  state.commit.checked_head = checkedHead;
  state.build.completed = true;
  state.build.built_head = builtHead;
  return state;
}

const deps = (store: IssueStateStore) => ({
  octokit: gh.octokit,
  store,
  repository,
  draft: true,
  triggerLabel: 'agent',
});

describe('the Committer and the checked head', () => {
  it('opens the pull request when the branch is where the gate read it', async () => {
    const head = await commitOn(
      gh,
      repository,
      { branch: 'agents/kept', parent: mainSha, create: true },
      'export const a = 2;\n',
    );
    const store = memoryStore(stateFor('agents/kept', head));
    const result = await runCommitter('c1', deps(store));
    expect(result.opened).toBe(true);
    expect(store.state.commit.hash).toBe(head);
    expect(store.state.pipeline.status).toBe('completed');
  });

  it('refuses a branch that moved after the check, and opens nothing', async () => {
    const checked = await commitOn(
      gh,
      repository,
      { branch: 'agents/moved', parent: mainSha, create: true },
      'export const a = 3;\n',
    );
    const moved = await commitOn(
      gh,
      repository,
      { branch: 'agents/moved', parent: checked, create: false },
      'export const a = 4; // later\n',
    );
    const store = memoryStore(stateFor('agents/moved', checked));
    const result = await runCommitter('c2', deps(store));
    expect(result).toEqual({
      opened: false,
      reason: expect.stringContaining('moved after its changes were checked'),
    });
    expect(result.opened ? '' : result.reason).toContain(moved.slice(0, 7));
    expect(store.state.pipeline.status).toBe('blocked');
    const pulls = await gh.octokit.rest.pulls.list({
      ...repository,
      state: 'all',
      head: 'acme:agents/moved',
    });
    expect(pulls.data).toHaveLength(0);
  });
});

describe('the Committer and the built head', () => {
  it('refuses a branch at the checked head when no build built that head, and opens nothing', async () => {
    const built = await commitOn(
      gh,
      repository,
      { branch: 'agents/unbuilt', parent: mainSha, create: true },
      'export const a = 5;\n',
    );
    const head = await commitOn(
      gh,
      repository,
      { branch: 'agents/unbuilt', parent: built, create: false },
      'export const a = 6; // unbuilt\n',
    );
    const store = memoryStore(stateFor('agents/unbuilt', head, built));
    const result = await runCommitter('c3', deps(store));
    expect(result).toEqual({
      opened: false,
      reason: expect.stringContaining(
        `The work branch moved after its build (built ${built.slice(0, 7)}, now ${head.slice(0, 7)})`,
      ),
    });
    expect(store.state.pipeline.status).toBe('blocked');
    const pulls = await gh.octokit.rest.pulls.list({
      ...repository,
      state: 'all',
      head: 'acme:agents/unbuilt',
    });
    expect(pulls.data).toHaveLength(0);
  });

  it('names the commit the checks built, the head the pull request opens with', async () => {
    const { body } = await opened(freshIssueState(Date.parse('2015-01-01T10:00:00Z')));
    expect(body).toMatch(/## Checks\n\nOf commit `[0-9a-f]{40}`, the head this pull request opened with\./);
  });
});

describe('the commit message', () => {
  it('names the issue and "Closes #n", and its first line titles the pull request', async () => {
    const state = freshIssueState(Date.parse('2015-01-01T10:00:00Z'));
    state.issue.type = 'BUG_FIX';
    state.writer.summary = 'VAT on net.';
    const { message, title } = await opened(state);
    expect(message).toBe('fix: Totals (#7)\n\nVAT on net.\n\nCloses #7');
    expect(title).toBe('fix: Totals (#7)');
  });
});
