import { describe, expect, it } from 'vitest';
import type { BuildResults, TestReport } from '../../lambdas/builds/contract.ts';
import { judgeBuild } from '../../lambdas/workflows/issue-pipeline/build-judge.ts';
import { handOff } from '../../lambdas/workflows/issue-pipeline/hand-off.ts';
import { BRANCH_HEAD, freshIssueState, handOffContext } from '../support/issue-state.ts';
import { useCommitter } from './committer-harness.ts';

/** How one begins when the base commit has no per-test report (stated here, not imported: the value is what this test checks). */
const UNREPORTED_BASE_PREFIX =
  "A failing check is let through as a whole, without the base commit's per-test report";

/** How an approval request to let a failing check through on the change's own report begins (stated here, not imported: the value is what this test checks). */
const OWN_REPORT_PREFIX = "A failing check is let through only on the change's own test report";

/** What a hand-off is given besides the state and the input. */
type HandOffContext = Parameters<typeof handOff>[2];

/**
 * A failing check excused only on the change's own test report (every failing test it names
 * fails on the base commit too) waits for a person before the pull request: the report is
 * written inside the code under test, which can leave a failure of its own out. An excuse on
 * CodeBuild's statuses alone (no per-test report on the base) needs no one.
 */

const NOW = Date.UTC(2001, 0, 1);
const fresh = () => freshIssueState(NOW);

const read = (failed: string[]): TestReport => ({
  status: 'read',
  total: 10,
  failed,
  complete: true,
  shared: [],
});

/** A red test check (exit 1), with these per-test results if any. */
const red = (tests?: TestReport): BuildResults => ({
  attempt: 1,
  passed: false,
  status: 'FAILED',
  checks: [
    {
      name: 'test',
      exitCode: 1,
      skipped: false,
      tail: 'test output',
      command: "sh -c 'tsx --test'",
      ...(tests === undefined ? {} : { tests }),
    },
  ],
  summary: 'summary',
  feedback: ['Check "test" exited 1. The end of its output:\ntest output'],
  // The head the gate reads (`handOffContext`): the build built it.
  headSha: BRANCH_HEAD,
});

const ctx = (over: Partial<HandOffContext> = {}) => handOffContext(NOW, over);

const review = {
  conversationId: 'c',
  agent: 'reviewer' as const,
  mode: 'work' as const,
  turn: {
    action: 'submitted' as const,
    sessionId: 's',
    submission: { verdict: 'APPROVED', findings: { good: [], issues: [] } },
  },
};

const approval = (decision: string) => ({
  conversationId: 'c',
  agent: 'reviewer' as const,
  mode: 'approval' as const,
  approval: { outcome: 'decided' as const, decision, by: 'U_DEV', at: '2001-01-01T00:05:00.000Z' },
});

/** The state after the judge excused the test check per test on the change's own report. */
function excusedOnOwnReport() {
  const state = fresh();
  state.pipeline.attempt = 1;
  const judged = judgeBuild(state, red(read(['cart > rounds VAT'])), red(read(['cart > rounds VAT'])));
  expect(judged.handOff.next).toBe('reviewer');
  return judged.state;
}

describe("a failure excused on the change's own test report", () => {
  it('is marked as resting on that report, and an excuse on statuses alone is not', () => {
    const run = excusedOnOwnReport().build.commands_run.find((c) => c.check === 'test');
    expect(run).toMatchObject({ pre_existing: true, on_own_report: true });
    const whole = judgeBuild(fresh(), red(), red()).state.build.commands_run.find((c) => c.check === 'test');
    expect(whole?.pre_existing).toBe(true);
    expect(whole?.on_own_report).toBeUndefined();
  });

  it('asks an approver before the pull request, naming the check, its tests, why, and the test files the branch changes', () => {
    const tests =
      'Tests the branch added, changed or deleted: `test/checkout.test.ts` (modified), 2 assertion lines removed';
    const gate = {
      verdict: 'clear' as const,
      headSha: BRANCH_HEAD,
      files: [],
      reason: '',
      approvalText: '',
      tests,
    };
    const { state, handOff: next } = handOff(excusedOnOwnReport(), review, ctx({ protectedGate: gate }));
    expect(next.reason).toContain(`read the test changes before approving.\n${tests}`);
    expect(next.next).toBe('approval');
    expect(next.reason).toContain(OWN_REPORT_PREFIX);
    expect(next.reason).toContain('• test: every failing test');
    expect(next.reason).toContain('cart > rounds VAT');
    expect(next.reason).toContain('written inside the code under test');
    expect(state.communication.escalations).toEqual([
      expect.objectContaining({ reason: expect.stringContaining(OWN_REPORT_PREFIX), resolved: false }),
    ]);
  });

  it('goes straight to the Committer when the excuse rests on the statuses alone', () => {
    const judged = judgeBuild(fresh(), red(), red());
    expect(handOff(judged.state, review, ctx()).handOff.next).toBe('committer');
  });

  it("opens the pull request on an approver's press, and stops on a rejection, naming the check", () => {
    const approved = handOff(handOff(excusedOnOwnReport(), review, ctx()).state, approval('approve'), ctx());
    expect(approved.handOff.next).toBe('committer');
    expect(approved.state.communication.escalations.every((e) => e.resolved)).toBe(true);

    const rejected = handOff(handOff(excusedOnOwnReport(), review, ctx()).state, approval('reject'), ctx());
    expect(rejected.handOff.next).toBe('blocked');
    expect(rejected.state.pipeline.blocked_reason).toContain(
      "<@U_DEV> rejected the failing check let through on the change's own test report.",
    );
    expect(rejected.state.pipeline.blocked_reason).toContain('cart > rounds VAT');
  });

  it('asks once for both when the change also touches protected paths', () => {
    const { state, handOff: next } = handOff(
      excusedOnOwnReport(),
      review,
      ctx({
        protectedGate: {
          verdict: 'approval',
          headSha: BRANCH_HEAD,
          files: ['package.json'],
          reason: 'The change touches protected paths:\n• `package.json` (modified)',
          approvalText: 'The change touches protected paths: `package.json` ```+"x": 1```',
        },
      }),
    );
    expect(next.next).toBe('approval');
    expect(next.reason).toContain(OWN_REPORT_PREFIX);
    expect(next.reason).toContain('`package.json`');
    const rejected = handOff(state, approval('reject'), ctx());
    expect(rejected.state.pipeline.blocked_reason).toContain('rejected the change to protected paths');
    expect(rejected.state.pipeline.blocked_reason).toContain('cart > rounds VAT');
  });
});

describe("a failure excused as a whole because the base's per-test report is missing", () => {
  /** The base's run of a check whose runner reports per test, but left no report CodeBuild kept. */
  const unreported = red({
    status: 'missing',
    reason: 'the test runner wrote no report CodeBuild could read',
  });

  it('is marked so, and says why on the record', () => {
    const run = judgeBuild(
      fresh(),
      red(read(['cart > rounds VAT'])),
      unreported,
    ).state.build.commands_run.find((c) => c.check === 'test');
    expect(run).toMatchObject({
      pre_existing: true,
      base_unreported: true,
      judged:
        "the base commit's run left no per-test report (the test runner wrote no report CodeBuild could read), so judged as a whole check",
    });
    expect(run?.on_own_report).toBeUndefined();
  });

  it('asks an approver before the pull request, and a rejection names what was refused', () => {
    const judged = judgeBuild(fresh(), red(read(['cart > rounds VAT'])), unreported);
    const asked = handOff(judged.state, review, ctx());
    expect(asked.handOff.next).toBe('approval');
    expect(asked.handOff.reason).toContain(
      `${UNREPORTED_BASE_PREFIX}, so a person decides whether it is pre-existing:`,
    );
    expect(asked.handOff.reason).toContain('any new failure in that check would pass unseen');
    const rejected = handOff(asked.state, approval('reject'), ctx());
    expect(rejected.handOff.next).toBe('blocked');
    expect(rejected.state.pipeline.blocked_reason).toContain(
      "<@U_DEV> rejected the failing check let through as a whole, without the base commit's per-test report.",
    );
  });
});

describe('who approved, on the pull request', () => {
  const committer = useCommitter();

  it("names the approver's Slack user and the time for each request they approved, and nothing when none was asked", async () => {
    const asked = handOff(excusedOnOwnReport(), review, ctx());
    const approved = handOff(asked.state, approval('approve'), ctx());
    expect(approved.state.communication.escalations).toEqual([
      expect.objectContaining({
        resolved: true,
        decided: { by: 'U_DEV', decision: 'approve', at: '2001-01-01T00:05:00.000Z' },
      }),
    ]);
    const { body } = await committer()(approved.state);
    expect(body).toContain(
      "## Approved by people\n\n- A failing check is let through only on the change's own test report: approved in Slack by user `U_DEV` at 2001-01-01T00:05:00.000Z",
    );
    const plain = judgeBuild(fresh(), red(), red()).state;
    expect((await committer()(plain)).body).not.toContain('Approved by people');
  });
});
