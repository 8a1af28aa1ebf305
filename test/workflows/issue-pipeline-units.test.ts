import { describe, expect, it } from 'vitest';
import type { BuildResults } from '../../lambdas/builds/contract.ts';
import { entityNamedBy } from '../../lambdas/kernel/command-entities.ts';
import { acceptedAnswers } from '../../lambdas/workflows/issue-pipeline/answers.ts';
import { judgeBuild, needsBase } from '../../lambdas/workflows/issue-pipeline/build-judge.ts';
import { handOff, toWriter } from '../../lambdas/workflows/issue-pipeline/hand-off.ts';
import { limitReached } from '../../lambdas/workflows/issue-pipeline/limits.ts';
import { failureNotice, showProgress } from '../../lambdas/workflows/issue-pipeline/progress.ts';
import { retriggerAnswer, retriggerMark } from '../../lambdas/workflows/issue-pipeline/retrigger.ts';
import { IssueState } from '../../lambdas/workflows/issue-pipeline/state.ts';
import { afterGreenBuild, BRANCH_HEAD, freshIssueState, handOffContext } from '../support/issue-state.ts';

/** What a hand-off is given besides the state and the input. */
type HandOffContext = Parameters<typeof handOff>[2];

const NOW = Date.parse('2015-01-01T10:00:00Z');
const fresh = () => freshIssueState(NOW);
/** The document after a green build of the head the gate reads, as the reviewer finds it. */
const built = () => afterGreenBuild(fresh());
const ctx = (over: Partial<HandOffContext> = {}) => handOffContext(NOW, over);
const turn = (submission: Record<string, unknown>) => ({
  action: 'submitted' as const,
  sessionId: 's',
  submission,
});
const results = (checks: [string, number][]): BuildResults => ({
  attempt: 1,
  passed: checks.every(([, code]) => code === 0),
  status: checks.every(([, code]) => code === 0) ? 'SUCCEEDED' : 'FAILED',
  checks: checks.map(([name, exitCode]) => ({ name, exitCode, skipped: false, tail: `${name} output` })),
  summary: 'summary',
  feedback: checks
    .filter(([, c]) => c !== 0)
    .map(([name, c]) => `Check "${name}" exited ${c}. The end of its output:\n${name} output`),
});

describe('the hand-off (in code)', () => {
  it('stores a valid triage and sends the pipeline to the analyst with the issue as notes', () => {
    const { state, handOff: next } = handOff(
      fresh(),
      {
        conversationId: 'c',
        agent: 'triage',
        mode: 'work',
        turn: turn({ type: 'BUG_FIX', scope: 'SMALL', complexity: 'simple', should_proceed: true }),
      },
      ctx(),
    );
    expect(next.next).toBe('analyst');
    expect(next.notes.join('\n')).toContain('#7 "Totals"');
    expect(state.triage).toMatchObject({ completed: true, scope: 'SMALL' });
    expect(IssueState.safeParse(state).success).toBe(true);
  });

  it('blocks with the schema errors when a submission breaks the schema', () => {
    const { state, handOff: next } = handOff(
      fresh(),
      { conversationId: 'c', agent: 'triage', mode: 'work', turn: turn({ type: 'BUG_FIX', scope: 'HUGE' }) },
      ctx(),
    );
    expect(next.next).toBe('blocked');
    expect(state.pipeline.blocked_reason).toMatch(/breaks the schema/);
  });

  it('blocks at the token ceiling before it looks at the submission', () => {
    const { handOff: next } = handOff(
      fresh(),
      { conversationId: 'c', agent: 'triage', mode: 'work', turn: turn({}) },
      ctx({ spend: { tokens: 1_000, costMicroUsd: 0 } }),
    );
    expect(next).toMatchObject({ next: 'blocked' });
    expect(next.reason).toContain('ceiling is 1,000');
  });

  it('fails after max_attempts writer attempts, keeping the last feedback', () => {
    let state = fresh();
    for (let i = 0; i < 3; i++) state = toWriter(state, `feedback ${i}`).state;
    const last = toWriter(state, 'final feedback');
    expect(last.handOff.next).toBe('failed');
    expect(last.state.pipeline.failure_reason).toBe('Writer-Reviewer loop exhausted after 3 attempts');
    expect(last.state.review.feedback_for_writer).toBe('final feedback');
  });

  it('routes a question to another agent, and its answer back to the asker', () => {
    const asked = handOff(
      fresh(),
      {
        conversationId: 'c',
        agent: 'writer',
        mode: 'work',
        turn: turn({
          changes: [{ file: 'a', description: 'd' }],
          test_written: false,
          summary: 's',
          question: { to: 'analyst', question: 'Where is it?' },
        }),
      },
      ctx(),
    );
    expect(asked.handOff).toMatchObject({ next: 'ask_agent', asker: 'writer', asked: 'analyst' });
    const answered = handOff(
      asked.state,
      {
        conversationId: 'c',
        agent: 'analyst',
        mode: 'answer',
        turn: turn({ answer: 'In cart.ts' }),
        previous: asked.handOff,
      },
      ctx(),
    );
    expect(answered.handOff.next).toBe('writer');
    expect(answered.handOff.notes[0]).toContain('In cart.ts');
    expect(answered.state.communication.questions[0]).toMatchObject({ answered: true, answer: 'In cart.ts' });
  });

  it("waits for people after a person stopped an agent's turn, and gives their answer back to that agent", () => {
    const stopped = handOff(
      fresh(),
      {
        conversationId: 'c',
        agent: 'analyst',
        mode: 'work',
        turn: { action: 'continue', sessionId: 's', stoppedByPerson: true },
      },
      ctx(),
    );
    // Not the analyst again at once (as a turn out of time would be), and not the end: people decide.
    expect(stopped.handOff).toMatchObject({ next: 'ask_people', asker: 'analyst' });
    expect(stopped.handOff.reason).toContain('I was stopped before I finished');
    expect(stopped.state.pipeline.status).not.toBe('blocked');
    const told = handOff(
      stopped.state,
      {
        conversationId: 'c',
        agent: 'analyst',
        mode: 'people',
        messages: [
          {
            channel: 'C1',
            senderId: 'U_DEV',
            senderType: 'developer',
            text: 'Look at the tax rounding only',
          },
        ],
        previous: stopped.handOff,
      },
      ctx(),
    );
    expect(told.handOff.next).toBe('analyst');
    expect(told.handOff.notes.join('\n')).toContain('Look at the tax rounding only');
    expect(told.state.communication.escalations[0]).toMatchObject({ agent: 'analyst', resolved: true });
  });

  it("asks people the asker's question when the agent answering it was stopped", () => {
    const asked = handOff(
      fresh(),
      {
        conversationId: 'c',
        agent: 'writer',
        mode: 'work',
        turn: turn({
          changes: [{ file: 'a', description: 'd' }],
          test_written: false,
          summary: 's',
          question: { to: 'analyst', question: 'Where is it?' },
        }),
      },
      ctx(),
    );
    const stopped = handOff(
      asked.state,
      {
        conversationId: 'c',
        agent: 'analyst',
        mode: 'answer',
        turn: { action: 'continue', sessionId: 's', stoppedByPerson: true },
        previous: asked.handOff,
      },
      ctx(),
    );
    expect(stopped.handOff).toMatchObject({ next: 'ask_people', asker: 'writer' });
    expect(stopped.handOff.reason).toBe('Where is it? (the analyst was stopped before it answered)');
  });

  const review = {
    conversationId: 'c',
    agent: 'reviewer' as const,
    mode: 'work' as const,
    turn: turn({ verdict: 'APPROVED', findings: { good: [], issues: [] } }),
  };

  it("asks for approval when the branch's diff touches a protected path, with the diff in the request", () => {
    const { state, handOff: next } = handOff(
      built(),
      review,
      ctx({
        protectedGate: {
          verdict: 'approval',
          headSha: BRANCH_HEAD,
          files: ['infra/stack.ts'],
          reason: 'The change touches protected paths:\n• `infra/stack.ts` (modified): matches `infra*`',
          approvalText: 'The change touches protected paths: ... ```+new line```',
        },
      }),
    );
    expect(next.next).toBe('approval');
    expect(next.reason).toContain('+new line');
    expect(state.communication.escalations[0]?.reason).toContain('infra/stack.ts');
  });

  it("ignores the writer's own list of changes: a clear diff goes to the Committer", () => {
    const state = built();
    state.writer.changes = [{ file: '.github/workflows/ci.yml', description: 'claims a protected file' }];
    const { handOff: next } = handOff(state, review, ctx());
    expect(next.next).toBe('committer');
  });

  it('blocks with the reason when the pipeline refuses protected changes', () => {
    const { handOff: next, state } = handOff(
      built(),
      review,
      ctx({
        protectedGate: {
          verdict: 'refused',
          headSha: BRANCH_HEAD,
          files: ['.github/workflows/evil.yml'],
          reason:
            'The change touches protected paths: `.github/workflows/evil.yml`. This workflow refuses such changes.',
          approvalText: '',
        },
      }),
    );
    expect(next.next).toBe('blocked');
    expect(state.pipeline.blocked_reason).toContain('.github/workflows/evil.yml');
  });

  it('opens nothing when the diff was not checked', () => {
    const { protectedGate: _, ...unchecked } = ctx();
    expect(handOff(built(), review, unchecked).handOff.next).toBe('blocked');
  });
});

describe('the build judged against the base commit', () => {
  it('needs the base only when a check failed and the base is not known', () => {
    expect(needsBase(results([['test', 1]]), undefined)).toBe(true);
    expect(needsBase(results([['test', 0]]), undefined)).toBe(false);
    expect(needsBase(results([['test', 1]]), results([['test', 1]]))).toBe(false);
  });

  it('reports a check that fails on the base too as pre-existing and sends the change to the reviewer', () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(
      state,
      results([
        ['test', 1],
        ['typecheck', 0],
      ]),
      results([
        ['test', 1],
        ['typecheck', 0],
      ]),
    );
    expect(judged.handOff.next).toBe('reviewer');
    expect(judged.state.build.commands_run[0]).toMatchObject({ command: 'npm test', pre_existing: true });
    expect(judged.state.build.tests_passed).toBe(true);
  });

  it('sends the writer only the failures the change caused', () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(
      state,
      results([
        ['test', 1],
        ['typecheck', 2],
      ]),
      results([
        ['test', 1],
        ['typecheck', 0],
      ]),
    );
    expect(judged.handOff.next).toBe('writer');
    expect(judged.state.writer.previous_feedback).toContain('Check "typecheck" exited 2');
    expect(judged.state.writer.previous_feedback).not.toContain('Check "test"');
  });
});

describe('the build judged by its own status too', () => {
  // Regression: a build whose shell was killed after it printed every check's end line was
  // judged by the checks alone. Green checks in a build that did not end SUCCEEDED or FAILED fail.
  it('fails the change when its build timed out, was stopped or lost, even with every check green', () => {
    for (const status of ['TIMED_OUT', 'STOPPED', 'FAULT', 'NO_CHECKS']) {
      const state = fresh();
      state.pipeline.attempt = 1;
      const green = { ...results([['test', 0]]), status, passed: false };
      const judged = judgeBuild(state, green, undefined);
      expect(judged.handOff.next).toBe('writer');
      expect(judged.state.build.tests_passed).toBe(false);
      expect(judged.state.build.errors.join('\n')).toContain(`the build ended ${status}`);
    }
  });

  it('never excuses as pre-existing a check that did not finish on the branch', () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const cut = results([['test', 1]]);
    const unfinished = { ...cut, checks: cut.checks.map(({ exitCode: _, ...c }) => c) };
    const judged = judgeBuild(state, unfinished, results([['test', 1]]));
    expect(judged.handOff.next).toBe('writer');
    expect(judged.state.build.commands_run[0]?.pre_existing).toBe(false);
  });
});

describe('the pipeline around the agents', () => {
  it('finds the issue a /fix names: a number, #number, or its URL in the repository', () => {
    const issueNumberIn = (text: string, repository: string) => {
      const issue = { names: [{ anchor: 'github_issue' as const, repository }], anchored: true, once: true };
      const anchor = entityNamedBy(issue, text)?.anchor;
      return anchor?.kind === 'github_issue' ? anchor.number : undefined;
    };
    expect(issueNumberIn('42', 'o/r')).toBe(42);
    expect(issueNumberIn(' #42 ', 'o/r')).toBe(42);
    expect(issueNumberIn('https://github.com/O/R/issues/42', 'o/r')).toBe(42);
    expect(issueNumberIn('https://github.com/other/r/issues/42', 'o/r')).toBeUndefined();
    expect(issueNumberIn('fix the cart', 'o/r')).toBeUndefined();
  });

  it('takes answers from developers in Slack and from repository writers on GitHub only', async () => {
    const { accepted, refused } = await acceptedAnswers(
      [
        { channel: 'C1', senderType: 'developer', senderId: 'U1', text: 'a' },
        { channel: 'C1', senderType: 'participant', senderId: 'U2', text: 'b' },
        { channel: 'github:o/r', senderType: 'commenter', senderId: 'github:writer', text: 'c' },
        { channel: 'github:o/r', senderType: 'commenter', senderId: 'github:reader', text: 'd' },
      ],
      {
        repository: 'o/r',
        permissionOf: async (login) => (login === 'writer' ? 'write' : 'read'),
        refusals: { refusedBefore: async () => new Set(), record: async () => {} },
      },
    );
    expect(accepted.map((a) => a.text)).toEqual(['a', 'c']);
    expect(refused.map((r) => r.message.text)).toEqual(['b', 'd']);
  });

  it("holds the wall-clock limit and the cost ceiling on the ledger's estimated cost, not on tokens", () => {
    const limits = { maxTokens: 10_000_000, maxCostUsd: 1, wallClockMinutes: 60 };
    expect(limitReached(fresh(), { tokens: 0, costMicroUsd: 0 }, limits, NOW + 61 * 60_000)).toContain(
      'wall-clock limit is 60',
    );
    // The ledger's priced cost decides: few tokens of a dear model reach it, many cheap ones do not.
    expect(limitReached(fresh(), { tokens: 1_000, costMicroUsd: 1_200_000 }, limits, NOW)).toContain(
      'estimated model cost reached $1.20, its ceiling is $1.00',
    );
    expect(limitReached(fresh(), { tokens: 5_000_000, costMicroUsd: 999_999 }, limits, NOW)).toBeUndefined();
  });

  it('renders the same checklist for Slack and GitHub, with the reason once it ended', async () => {
    const state = fresh();
    state.pipeline.status = 'blocked';
    state.pipeline.blocked_reason = 'Nobody answered.';
    // The summary as showProgress posts it first: once in Slack, once as the issue's comment.
    const slack: string[] = [];
    const github: string[] = [];
    await showProgress(state, {}, 'C_DEV', {
      postSlack: async (channel, text) => {
        slack.push(text);
        return { channel, ts: '1763726000.123456' };
      },
      updateSlack: async () => {},
      replySlack: async () => {},
      createComment: async (body) => {
        github.push(body);
        return 42;
      },
      updateComment: async () => {},
    });
    expect(slack).toHaveLength(1);
    expect(github).toHaveLength(1);
    expect(slack[0]).toContain('<https://github.com/o/r/issues/7|#7 Totals>: *blocked*');
    expect(github[0]).toContain('[#7 Totals](https://github.com/o/r/issues/7): **blocked**');
    expect(github[0]).toContain('Reason: Nobody answered.');
  });

  it('tells an internal error with the issue linked, the error and its cause, for Slack and GitHub', () => {
    const state = fresh();
    const failure = { Error: 'Lambda.ServiceException', Cause: 'Rate exceeded' };
    expect(failureNotice(state, failure, 'slack')).toBe(
      ':warning: The issue pipeline for <https://github.com/o/r/issues/7|#7 Totals> stopped on an internal error after its retries (Lambda.ServiceException: Rate exceeded). ' +
        'Nothing more will happen on its own: a developer needs to look at it, then label the issue again or run /fix to start over.',
    );
    expect(failureNotice(state, { Error: 'States.Timeout' }, 'github')).toContain(
      'The issue pipeline for [#7 Totals](https://github.com/o/r/issues/7) stopped on an internal error after its retries (States.Timeout).',
    );
  });

  it('tells a model that refused the calls as the model, not as an internal error, with its answer', () => {
    const failure = {
      Error: 'ModelCallError',
      Cause: 'the model API answered HTTP 401 authentication_error: invalid x-api-key',
    };
    expect(failureNotice(fresh(), failure, 'slack')).toBe(
      ':warning: The issue pipeline for <https://github.com/o/r/issues/7|#7 Totals> stopped because its model could not serve it (ModelCallError: the model API answered HTTP 401 authentication_error: invalid x-api-key). ' +
        'Nothing more will happen on its own: a developer needs to look at it, then label the issue again or run /fix to start over.',
    );
  });
});

describe('the answer to an issue labelled again while its pipeline runs', () => {
  it('names the person, links the Slack thread and the progress comment, and carries the event mark', () => {
    const body = retriggerAnswer({
      user: 'github:octocat',
      ts: '1763726400.000100',
      issueUrl: 'https://github.com/o/r/issues/7',
      anchors: { slack: { channel: 'C_DEV', ts: '1763726000.123456' }, commentId: 42 },
    });
    expect(body).toContain('@octocat the agent pipeline is already running');
    expect(body).toContain('https://slack.com/archives/C_DEV/p1763726000123456');
    expect(body).toContain('https://github.com/o/r/issues/7#issuecomment-42');
    expect(body).toContain(retriggerMark('1763726400.000100'));
    expect(retriggerMark('1763726400.000100')).not.toBe(retriggerMark('1763726400.000101'));
  });

  it('still answers before the progress is posted, without links', () => {
    const body = retriggerAnswer({ user: 'github:octocat', ts: '1', issueUrl: 'u', anchors: {} });
    expect(body).not.toContain('http');
    expect(body).toContain('already running');
  });
});
