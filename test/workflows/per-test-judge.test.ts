import { describe, expect, it } from 'vitest';
import type { BuildResults, TestReport } from '../../lambdas/builds/contract.ts';
import { withJunitReport } from '../../lambdas/builds/junit-report.ts';
import { testName } from '../../lambdas/builds/read-test-report.ts';
import { failingChecks, judgeBuild } from '../../lambdas/workflows/issue-pipeline/build-judge.ts';
import { pullRequestBody } from '../../lambdas/workflows/issue-pipeline/committer.ts';
import { initialState } from '../../lambdas/workflows/issue-pipeline/state.ts';

/**
 * "Pre-existing" judged per test where the test runner writes JUnit XML (read through
 * CodeBuild's report API): a test failing on the base commit excuses only itself. Without a
 * report the check is judged as a whole, as before, and the pull request says which.
 */

const fresh = () =>
  initialState({
    issue: {
      number: 7,
      title: 'Totals',
      url: 'https://github.com/o/r/issues/7',
      type: null,
      original_body: 'b',
      labels: ['agent'],
    },
    startedAt: new Date(Date.UTC(2001, 0, 1)).toISOString(),
    maxAttempts: 3,
    branch: 'agents/issue-7',
  });

const read = (failed: string[], complete = true): TestReport => ({
  status: 'read',
  total: 10,
  failed,
  complete,
});

/** A red test check (exit 1) with these per-test results, and a green typecheck. */
const red = (tests?: TestReport): BuildResults => ({
  attempt: 1,
  passed: false,
  status: 'FAILED',
  checks: [
    { name: 'typecheck', exitCode: 0, skipped: false, tail: '' },
    {
      name: 'test',
      exitCode: 1,
      skipped: false,
      tail: 'test output',
      command: 'sh -c tsx --test',
      ...(tests === undefined ? {} : { tests }),
    },
  ],
  summary: 'summary',
  feedback: ['Check "test" exited 1. The end of its output:\ntest output'],
});

const judgedTest = (branch: BuildResults, base: BuildResults) =>
  failingChecks(branch, base).find((f) => f.name === 'test');

describe('a failing test check judged against the base, per test', () => {
  it('excuses a test that fails on the base too, and only that one', () => {
    const base = red(read(['cart > rounds VAT']));
    expect(judgedTest(red(read(['cart > rounds VAT'])), base)).toMatchObject({ preExisting: true });
    const verdict = judgedTest(red(read(['cart > rounds VAT', 'cart > applies the coupon'])), base);
    expect(verdict).toEqual({
      name: 'test',
      preExisting: false,
      detail: 'failing tests that pass on the base commit: cart > applies the coupon',
    });
  });

  it('sends the writer the new failing test, and keeps the check red', () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(
      state,
      red(read(['cart > rounds VAT', 'cart > applies the coupon'])),
      red(read(['cart > rounds VAT'])),
    );
    expect(judged.handOff.next).toBe('writer');
    expect(judged.state.build.tests_passed).toBe(false);
    expect(judged.state.build.errors).toContain(
      'test failed: failing tests that pass on the base commit: cart > applies the coupon',
    );
    expect(judged.state.writer.previous_feedback).toContain('cart > applies the coupon');
  });

  it('excuses nothing when the change has no usable report, an incomplete list, or names no failure', () => {
    const base = red(read(['a']));
    expect(
      judgedTest(red({ status: 'missing', reason: 'the build has no test report' }), base),
    ).toMatchObject({
      preExisting: false,
      detail: expect.stringContaining('the build has no test report'),
    });
    expect(judgedTest(red(read(['a'], false)), base)?.preExisting).toBe(false);
    // A report that says every test passed while the check failed contradicts CodeBuild's status.
    expect(judgedTest(red(read([])), base)).toMatchObject({
      preExisting: false,
      detail: 'the check failed, but its report names no failing test',
    });
  });

  it('judges the check as a whole when the base has no per-test report, and says so on the pull request', () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(state, red(), red());
    expect(judged.handOff.next).toBe('reviewer');
    const run = judged.state.build.commands_run.find((c) => c.check === 'test');
    expect(run).toMatchObject({
      pre_existing: true,
      judged: 'no per-test report, so judged as a whole check',
    });
    expect(pullRequestBody(judged.state, 'title\n\nsummary', '- files')).toContain(
      '(fails on the base commit too: no per-test report, so judged as a whole check)',
    );
  });

  it('says on the pull request which tests fail on the base too', () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(state, red(read(['cart > rounds VAT'])), red(read(['cart > rounds VAT'])));
    expect(judged.handOff.next).toBe('reviewer');
    expect(pullRequestBody(judged.state, 'title\n\nsummary', '- files')).toContain(
      'fails on the base commit too: every failing test fails on the base commit too: cart > rounds VAT',
    );
  });
});

describe('the JUnit reporter added to the test script', () => {
  it("adds Node's and Vitest's JUnit reporters to one plain runner call", () => {
    expect(withJunitReport('tsx --test test/*.test.ts')).toBe(
      'tsx --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=.check-junit.xml test/*.test.ts',
    );
    expect(withJunitReport('node --import tsx --test')).toBe(
      'node --import tsx --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=.check-junit.xml',
    );
    expect(withJunitReport('vitest run')).toBe(
      'vitest run --reporter=default --reporter=junit --outputFile.junit=.check-junit.xml',
    );
  });

  it('leaves any other script as it is: other runners, compound commands, reporters already chosen', () => {
    expect(withJunitReport('jest')).toBeUndefined();
    expect(withJunitReport('npm run build && vitest run')).toBeUndefined();
    expect(withJunitReport('vitest run --reporter=dot')).toBeUndefined();
    expect(withJunitReport('node --test-only x.js')).toBeUndefined();
    expect(withJunitReport('node --test --test-reporter=tap')).toBeUndefined();
  });

  it('names a test by its prefix, suite and name, a repeated part once', () => {
    expect(
      testName({ prefix: 'test/cart.test.ts', testSuiteName: 'test/cart.test.ts', name: 'cart > coupon' }),
    ).toBe('test/cart.test.ts > cart > coupon');
    expect(testName({ prefix: 'test', testSuiteName: 'cart', name: 'adds VAT' })).toBe(
      'test > cart > adds VAT',
    );
  });
});
