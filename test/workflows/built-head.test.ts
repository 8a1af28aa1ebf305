import { describe, expect, it } from 'vitest';
import type { BuildResults } from '../../lambdas/builds/contract.ts';
import { CODE_TOOL_NAMES } from '../../lambdas/tools/code/tools.ts';
import { judgeBuild } from '../../lambdas/workflows/issue-pipeline/build-judge.ts';
import type { HandOff } from '../../lambdas/workflows/issue-pipeline/contract.ts';
import { handOff } from '../../lambdas/workflows/issue-pipeline/hand-off.ts';
import { ISSUE_PIPELINE_PROFILES } from '../../lambdas/workflows/issue-pipeline/profiles/index.ts';
import type { IssueState } from '../../lambdas/workflows/issue-pipeline/state.ts';
import { freshIssueState, handOffContext } from '../support/issue-state.ts';

/**
 * The head a pull request opens with is the head whose build passed. The build's verdict keeps
 * the commit its checks built; an approving review goes on to the gate's approval or the
 * Committer only while the work branch is still there. The way it was broken: after a green
 * build the reviewer asks the writer a question, the writer's answer turn commits, the reviewer
 * approves, and the gate (and then the Committer) read the new head, which no build ran.
 */

const NOW = Date.UTC(2001, 0, 1);
const BUILT = '1'.repeat(40);
const MOVED = '2'.repeat(40);
const BASE = 'b'.repeat(40);

const green = (headSha?: string): BuildResults => ({
  attempt: 1,
  passed: true,
  status: 'SUCCEEDED',
  checks: ['install', 'typecheck', 'test'].map((name) => ({ name, exitCode: 0, skipped: false, tail: '' })),
  summary: 'all green',
  feedback: [],
  ...(headSha === undefined ? {} : { headSha }),
});
const red = (headSha: string): BuildResults => ({
  ...green(headSha),
  passed: false,
  status: 'FAILED',
  checks: [{ name: 'test', exitCode: 1, skipped: false, tail: 'boom' }],
  feedback: ['Check "test" exited 1.'],
});

const ctx = (head?: string) =>
  handOffContext(
    NOW,
    head === undefined
      ? {}
      : { protectedGate: { verdict: 'clear', headSha: head, files: [], reason: '', approvalText: '' } },
  );
const submitted = (submission: Record<string, unknown>) => ({
  action: 'submitted' as const,
  sessionId: 's',
  submission,
});
const review = (submission: Record<string, unknown> = {}) => ({
  conversationId: 'c',
  agent: 'reviewer' as const,
  mode: 'work' as const,
  turn: submitted({ verdict: 'APPROVED', findings: { good: [], issues: [] }, ...submission }),
});

/** The writer's first attempt, built green at `head`: the reviewer is next. */
function builtAt(head: string | undefined, attempt = 1): IssueState {
  const state = freshIssueState(NOW);
  state.pipeline.attempt = attempt;
  state.writer = { ...state.writer, attempt, completed: true, summary: 'VAT on net' };
  const judged = judgeBuild(state, green(head), undefined);
  expect(judged.handOff.next).toBe('reviewer');
  return judged.state;
}

/** After the build: the reviewer asks the writer, and the writer's answer comes back. */
function reviewerAskedWriter(state: IssueState): IssueState {
  const asked = handOff(state, review({ question: { to: 'writer', question: 'Why net?' } }), ctx());
  expect(asked.handOff).toMatchObject({ next: 'ask_agent', asker: 'reviewer', asked: 'writer' });
  const answered = handOff(
    asked.state,
    {
      conversationId: 'c',
      agent: 'writer',
      mode: 'answer',
      turn: submitted({ answer: 'VAT is charged after the discount.' }),
      previous: asked.handOff as HandOff,
    },
    ctx(),
  );
  expect(answered.handOff.next).toBe('reviewer');
  return answered.state;
}

describe('the head a pull request opens with is the head whose build passed', () => {
  it('keeps the commit the checks built with the verdict, and forgets it when the writer is sent back', () => {
    expect(builtAt(BUILT).build).toMatchObject({ completed: true, built_head: BUILT, tests_passed: true });
    const state = freshIssueState(NOW);
    state.pipeline.attempt = 1;
    const failed = judgeBuild(state, red(BUILT), green(BASE));
    expect(failed.handOff.next).toBe('writer');
    expect(failed.state.build.built_head).toBeNull();
  });

  it("keeps the branch's head, not the base commit's, when the verdict waited for the base build", () => {
    const state = freshIssueState(NOW);
    state.pipeline.attempt = 1;
    const excused = judgeBuild(state, red(BUILT), red(BASE));
    // The one red check fails on the base too: pre-existing, so the reviewer is next.
    expect(excused.handOff.next).toBe('reviewer');
    expect(excused.state.build.built_head).toBe(BUILT);
  });

  it('refuses an approving review when the branch moved after its build: blocked, the attempt unchanged', () => {
    const state = reviewerAskedWriter(builtAt(BUILT));
    // The writer's answer turn (or anyone with push access) moved the branch: the gate reads MOVED.
    const { state: after, handOff: next } = handOff(state, review(), ctx(MOVED));
    expect(next.next).toBe('blocked');
    expect(next.reason).toContain('The work branch moved after its build (built 1111111, now 2222222)');
    expect(after.pipeline).toMatchObject({ status: 'blocked', attempt: 1 });
    expect(after.commit.checked_head).toBeUndefined();
    expect(after.writer.attempt).toBe(1);
  });

  it('refuses it at the last attempt too, without another attempt or another build', () => {
    const { handOff: next, state } = handOff(builtAt(BUILT, 3), review(), ctx(MOVED));
    expect(next).toMatchObject({ next: 'blocked', attempt: 3 });
    expect(state.pipeline.attempt).toBe(3);
  });

  it('goes on to the Committer when the gate reads the head the build built', () => {
    const state = reviewerAskedWriter(builtAt(BUILT));
    const { state: after, handOff: next } = handOff(state, review(), ctx(BUILT));
    expect(next.next).toBe('committer');
    expect(after.commit.checked_head).toBe(BUILT);
  });

  it('judges a pipeline under way at an upgrade as it began: a document without the field goes by the gate', () => {
    const before = builtAt(BUILT);
    delete before.build.built_head;
    const { state: after, handOff: next } = handOff(before, review(), ctx(MOVED));
    expect(next.next).toBe('committer');
    expect(after.commit.checked_head).toBe(MOVED);
  });

  it('refuses an approving review when no build of the head is recorded', () => {
    const { handOff: next } = handOff(builtAt(undefined), review(), ctx(BUILT));
    expect(next.next).toBe('blocked');
    expect(next.reason).toContain('No passing build is recorded');
  });
});

describe("an agent's answer to another agent's question", () => {
  const WRITES = [CODE_TOOL_NAMES.writeFile, CODE_TOOL_NAMES.deleteFile];
  const READS_ONLY = [
    CODE_TOOL_NAMES.listFiles,
    CODE_TOOL_NAMES.readFile,
    CODE_TOOL_NAMES.searchCode,
    CODE_TOOL_NAMES.getDiff,
  ];
  const names = (profile: { tools: readonly { name: string }[] }) => profile.tools.map((t) => t.name);

  it('runs with read-only tools: the writer answers without write_file or delete_file', () => {
    const answers = Object.entries(ISSUE_PIPELINE_PROFILES).filter(([name]) => name.endsWith('_answer'));
    expect(answers.map(([name]) => name).sort()).toEqual([
      'issue_analyst_answer',
      'issue_reviewer_answer',
      'issue_triage_answer',
      'issue_writer_answer',
    ]);
    for (const [, profile] of answers) {
      expect(names(profile).filter((name) => !READS_ONLY.includes(name as never))).toEqual([]);
    }
    expect(names(ISSUE_PIPELINE_PROFILES.issue_writer_answer)).toEqual(READS_ONLY);
    // The writer's own turn still writes: the answer profile is narrower, not the agent.
    expect(names(ISSUE_PIPELINE_PROFILES.issue_writer)).toEqual(expect.arrayContaining(WRITES));
    expect(ISSUE_PIPELINE_PROFILES.issue_writer_answer.system).toContain('you only read');
  });
});
