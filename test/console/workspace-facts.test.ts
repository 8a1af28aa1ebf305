import { describe, expect, it } from 'vitest';
import type { RepositoryPage } from '../../console/src/api.ts';
import { hasWorkspace, historyFacts, workspaceFacts } from '../../console/src/workspace-facts.ts';
import { buildResults } from '../../lambdas/builds/build-results.ts';

/**
 * The console's workspace facts against what the bug workflow's fix path really writes: the
 * build results come from its own `buildResults`, so a change of that contract shows here.
 */

const CONVERSATION = 'bug-investigation-C_BUG_REPORTS-1795420000-000100';
const BRANCH = 'agents/bug-1a2b3c';
const at = '2015-11-23T10:00:00.000Z';

const failed = await buildResults({
  attempt: 1,
  status: 'FAILED',
  buildId: 'checks:1',
  checks: [
    { name: 'install', exitCode: 0, skipped: false, tail: 'added 12 packages' },
    { name: 'test', exitCode: 1, skipped: false, tail: 'FAIL checkout.test.ts\n  expected 47.77' },
    { name: 'lint', skipped: true, tail: '' },
  ],
});
const passed = await buildResults({
  attempt: 2,
  status: 'SUCCEEDED',
  buildId: 'checks:2',
  checks: [
    { name: 'install', exitCode: 0, skipped: false, tail: 'added 12 packages' },
    { name: 'test', exitCode: 0, skipped: false, tail: '3 passed' },
  ],
});

const history = [
  { type: 'ExecutionStarted', timestamp: at, input: JSON.stringify({ conversationId: CONVERSATION }) },
  // Before any build: the placeholders a workflow starts with are not builds nor an outcome.
  {
    type: 'PassStateExited',
    timestamp: at,
    output: JSON.stringify({
      fix: {
        build: { passed: false, status: 'NOT_STARTED', summary: 'No build ran.' },
        pullRequest: { opened: false },
      },
    }),
  },
  {
    type: 'TaskScheduled',
    timestamp: at,
    parameters: JSON.stringify({ ProjectName: 'checks', SourceVersion: `refs/heads/${BRANCH}` }),
  },
  { type: 'LambdaFunctionSucceeded', timestamp: at, output: JSON.stringify(failed) },
  // The same build again in a later state's output: still one build.
  { type: 'TaskStateExited', timestamp: at, output: JSON.stringify({ fix: { build: failed } }) },
  { type: 'LambdaFunctionSucceeded', timestamp: at, output: JSON.stringify(passed) },
  {
    type: 'LambdaFunctionSucceeded',
    timestamp: at,
    output: JSON.stringify({
      opened: true,
      number: 7,
      url: 'http://127.0.0.1:3000/sandbox/github/repos/demo/webshop/pull/7',
    }),
  },
];

const repository: RepositoryPage = {
  repository: { full_name: 'demo/webshop', default_branch: 'main' },
  branches: [
    { name: 'main', sha: 'a'.repeat(40), ahead_by: 0, commits: [] },
    {
      name: BRANCH,
      sha: 'b'.repeat(40),
      ahead_by: 2,
      commits: [
        { sha: 'c'.repeat(40), message: 'Fix VAT\n\nbody', author: 'bot', date: at },
        { sha: 'b'.repeat(40), message: 'Fix VAT again', author: 'bot', date: at },
      ],
    },
    { name: 'agents/someone-else', sha: 'd'.repeat(40), ahead_by: 1, commits: [] },
  ],
  pulls: [
    {
      number: 7,
      title: 'Fix VAT',
      state: 'open',
      draft: true,
      head: BRANCH,
      base: 'main',
      html_url: 'http://x/pull/7',
    },
    { number: 3, title: 'Other', state: 'open', head: 'agents/someone-else', html_url: 'http://x/pull/3' },
  ],
};

describe("a conversation's workspace in the console", () => {
  it("finds its builds in the history, each check's exit code and output tail, one entry per build", () => {
    const facts = historyFacts(history);
    expect(facts.builds.map((b) => [b.attempt, b.status, b.passed])).toEqual([
      [1, 'FAILED', false],
      [2, 'SUCCEEDED', true],
    ]);
    expect(facts.builds[0]?.checks).toEqual([
      { name: 'install', exitCode: 0, skipped: false, tail: 'added 12 packages' },
      { name: 'test', exitCode: 1, skipped: false, tail: 'FAIL checkout.test.ts\n  expected 47.77' },
      { name: 'lint', skipped: true, tail: '' },
    ]);
    expect(facts.outcome).toEqual({
      opened: true,
      number: 7,
      url: 'http://127.0.0.1:3000/sandbox/github/repos/demo/webshop/pull/7',
    });
  });

  it('takes the branches the history names, with their commits and pull requests, and no one else’s', () => {
    const facts = workspaceFacts(CONVERSATION, historyFacts(history), [repository]);
    expect(facts.branches.map((b) => [b.repository, b.name, b.base, b.aheadBy, b.commits.length])).toEqual([
      ['demo/webshop', BRANCH, 'main', 2, 2],
    ]);
    expect(facts.pulls.map((p) => [p.number, p.draft, p.head])).toEqual([[7, true, BRANCH]]);
    expect(hasWorkspace(facts)).toBe(true);
  });

  it("takes a branch that carries the conversation's id before the history names it", () => {
    const own = { name: `agents/${CONVERSATION}`, sha: 'e'.repeat(40), ahead_by: 1, commits: [] };
    const facts = workspaceFacts(CONVERSATION, historyFacts(history.slice(0, 2)), [
      { ...repository, branches: [...repository.branches, own] },
    ]);
    expect(facts.branches.map((b) => b.name)).toEqual([own.name]);
    expect(facts.builds).toEqual([]);
  });

  it('says why no pull request was opened, and has nothing to show for a conversation without code', () => {
    const refused = historyFacts([
      { output: JSON.stringify({ opened: false, reason: 'the checks still fail after 3 attempts' }) },
    ]);
    expect(refused.outcome).toEqual({ opened: false, reason: 'the checks still fail after 3 attempts' });
    const none = workspaceFacts(CONVERSATION, historyFacts(history.slice(0, 2)), [repository]);
    expect(hasWorkspace(none)).toBe(false);
  });
});
