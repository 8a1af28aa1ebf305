import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { BatchGetReportsCommand, type CodeBuildClient, type TestCase } from '@aws-sdk/client-codebuild';
import { describe, expect, it } from 'vitest';
import { buildResults } from '../../lambdas/builds/build-results.ts';
import type { BuildResults, TestReport } from '../../lambdas/builds/contract.ts';
import { withJunitReport } from '../../lambdas/builds/junit-report.ts';
import { readBuildResults } from '../../lambdas/builds/read-build.ts';
import { codeBuildTestReports } from '../../lambdas/builds/read-test-report.ts';
import { judgeBuild } from '../../lambdas/workflows/issue-pipeline/build-judge.ts';
import { freshIssueState } from '../support/issue-state.ts';
import { useCommitter } from './committer-harness.ts';

/**
 * "Pre-existing" judged per test where the test runner writes JUnit XML (read through
 * CodeBuild's report API): a test failing on the base commit excuses only itself. Without a
 * report the check is judged as a whole, as before, and the pull request says which.
 */

const fresh = () => freshIssueState(Date.UTC(2001, 0, 1));

const read = (failed: string[], complete = true, shared: string[] = []): TestReport => ({
  status: 'read',
  total: 10,
  failed,
  complete,
  shared,
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

/** The test check's verdict as the judge records it in the build section (the pull request and the writer read it). */
const judgedTest = (branch: BuildResults, base: BuildResults) => {
  const state = fresh();
  state.pipeline.attempt = 1;
  const run = judgeBuild(state, branch, base).state.build.commands_run.find((c) => c.check === 'test');
  if (run === undefined) return undefined;
  const { check, pre_existing, judged, on_own_report, base_unreported } = run;
  return { check, pre_existing, judged, on_own_report, base_unreported };
};

const BUILD_ARN = 'arn:aws:codebuild:us-east-1:000000000000:build/checks:1';
const REPORT_ARN = 'arn:aws:codebuild:us-east-1:000000000000:report/checks-tests:1';

/** What the workflows read of a build whose one report, its own, holds `cases` (one page of them). */
function reportOf(cases: TestCase[]): Promise<TestReport> {
  const report = {
    arn: REPORT_ARN,
    executionId: BUILD_ARN,
    reportGroupArn: 'arn:aws:codebuild:us-east-1:000000000000:report-group/checks-tests',
    status: 'FAILED',
    testSummary: { total: cases.length },
  };
  const client = {
    send: async (command: unknown) =>
      command instanceof BatchGetReportsCommand ? { reports: [report] } : { testCases: cases },
  } as unknown as CodeBuildClient;
  return codeBuildTestReports(client)({ arn: BUILD_ARN, reportArns: [REPORT_ARN] });
}

describe('a failing test check judged against the base, per test', () => {
  const committer = useCommitter();

  it('excuses a test that fails on the base too, and only that one', () => {
    const base = red(read(['cart > rounds VAT']));
    expect(judgedTest(red(read(['cart > rounds VAT'])), base)).toMatchObject({ pre_existing: true });
    const verdict = judgedTest(red(read(['cart > rounds VAT', 'cart > applies the coupon'])), base);
    expect(verdict).toEqual({
      check: 'test',
      pre_existing: false,
      judged: 'failing tests that pass on the base commit: cart > applies the coupon',
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
      pre_existing: false,
      judged: expect.stringContaining('the build has no test report'),
    });
    expect(judgedTest(red(read(['a'], false)), base)?.pre_existing).toBe(false);
    // A report that says every test passed while the check failed contradicts CodeBuild's status.
    expect(judgedTest(red(read([])), base)).toMatchObject({
      pre_existing: false,
      judged: 'the check failed, but its report names no failing test',
    });
  });

  it('judges the check as a whole when the base has no per-test report, and says so on the pull request', async () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(state, red(), red());
    expect(judged.handOff.next).toBe('reviewer');
    const run = judged.state.build.commands_run.find((c) => c.check === 'test');
    expect(run).toMatchObject({
      pre_existing: true,
      judged: 'no per-test report, so judged as a whole check',
    });
    expect((await committer()(judged.state)).body).toContain(
      '(fails on the base commit too: no per-test report, so judged as a whole check)',
    );
  });

  it('says on the pull request which tests fail on the base too', async () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(state, red(read(['cart > rounds VAT'])), red(read(['cart > rounds VAT'])));
    expect(judged.handOff.next).toBe('reviewer');
    expect((await committer()(judged.state)).body).toContain(
      "fails on the base commit too: every failing test the change's own report names fails on the base commit too: cart > rounds VAT",
    );
  });
});

describe('tests named alike in different files (a report that names no file)', () => {
  // Node's JUnit reporter: every case's classname is `test`, no file anywhere.
  const nodeCase = (name: string, status: 'SUCCEEDED' | 'FAILED', suite?: string) => ({
    prefix: 'test',
    name,
    status,
    ...(suite === undefined ? {} : { testSuiteName: suite }),
  });

  it('marks a failed test whose name another case carries, whatever that case did', async () => {
    expect(
      await reportOf([
        nodeCase('rounds VAT', 'FAILED'),
        nodeCase('rounds VAT', 'SUCCEEDED'),
        nodeCase('adds', 'FAILED', 'cart'),
        nodeCase('adds', 'SUCCEEDED'),
        nodeCase('applies the coupon', 'FAILED'),
      ]),
    ).toEqual({
      status: 'read',
      total: 5,
      failed: ['test > applies the coupon', 'test > cart > adds', 'test > rounds VAT'],
      complete: true,
      // `cart > adds` and top-level `adds` are two names: the suite tells them apart.
      shared: ['test > rounds VAT'],
    });
  });

  it('keeps tests of two files apart where the report names the file (Vitest: the classname)', async () => {
    const vitestCase = (file: string, status: 'SUCCEEDED' | 'FAILED') => ({
      prefix: file,
      testSuiteName: file,
      name: 'cart > rounds VAT',
      status,
    });
    expect(
      await reportOf([vitestCase('test/a.test.ts', 'FAILED'), vitestCase('test/b.test.ts', 'SUCCEEDED')]),
    ).toEqual({
      status: 'read',
      total: 2,
      failed: ['test/a.test.ts > cart > rounds VAT'],
      complete: true,
      shared: [],
    });
  });

  it('excuses nothing when the test failing on the base shares its name with a passing test elsewhere (regression: both counted as one)', () => {
    // On the base, a.test's "rounds VAT" fails and b.test's passes; the change breaks b.test's.
    const base = red(read(['test > rounds VAT'], true, ['test > rounds VAT']));
    const verdict = judgedTest(red(read(['test > rounds VAT'], true, ['test > rounds VAT'])), base);
    expect(verdict).toEqual({
      check: 'test',
      pre_existing: false,
      judged:
        "failing tests whose name other tests share (the report names no file), so they cannot be matched to the base's: test > rounds VAT",
    });
  });

  it("excuses nothing when only the change's report has two tests of that name (a namesake added beside the base's red test)", () => {
    const base = red(read(['test > rounds VAT']));
    expect(
      judgedTest(red(read(['test > rounds VAT'], true, ['test > rounds VAT'])), base)?.pre_existing,
    ).toBe(false);
    // Unshared, the same failure is the base's own and stays excused.
    expect(judgedTest(red(read(['test > rounds VAT'])), base)?.pre_existing).toBe(true);
  });

  it('names both the new failures and the ones that cannot be matched, and sends the writer back', () => {
    const state = fresh();
    state.pipeline.attempt = 1;
    const judged = judgeBuild(
      state,
      red(read(['test > applies the coupon', 'test > rounds VAT'], true, ['test > rounds VAT'])),
      red(read(['test > rounds VAT'], true, ['test > rounds VAT'])),
    );
    expect(judged.handOff.next).toBe('writer');
    expect(judged.state.build.errors[0]).toBe(
      "test failed: failing tests that pass on the base commit: test > applies the coupon. failing tests whose name other tests share (the report names no file), so they cannot be matched to the base's: test > rounds VAT",
    );
  });
});

describe("a failing check's tests, for people and the next attempt (both workflows)", () => {
  /** A finished build of `check` whose BUILD phase ended `status`, listing one report. */
  const outcome = (check: string, status: 'SUCCEEDED' | 'FAILED') => ({
    check,
    output: {
      Build: {
        Id: `${check}-build`,
        BuildStatus: status,
        Phases: [
          { PhaseType: 'INSTALL', PhaseStatus: 'SUCCEEDED' },
          {
            PhaseType: 'BUILD',
            PhaseStatus: status,
            ...(status === 'FAILED'
              ? { Contexts: [{ StatusCode: 'COMMAND_EXECUTION_ERROR', Message: 'Reason: exit status 1' }] }
              : {}),
          },
        ],
        ReportArns: [`arn:aws:codebuild:us-east-1:000000000000:report/p-tests:${check}`],
      },
    },
  });
  const noLogs = { send: async () => ({ events: [] }) } as unknown as CloudWatchLogsClient;
  const definitions = (name: 'test' | 'lint') => [{ name, command: 'sh -c tsx --test', junitReport: true }];

  it('reads the report of a check that failed, and names its failing tests in the summary and the feedback', async () => {
    const asked: string[][] = [];
    const results = await readBuildResults(
      { conversationId: 'c', attempt: 1, checks: definitions('test'), builds: [outcome('test', 'FAILED')] },
      noLogs,
      async ({ reportArns }) => {
        asked.push([...reportArns]);
        return read(['test > cart > applies the coupon', 'test > rounds VAT']);
      },
    );
    expect(asked).toEqual([['arn:aws:codebuild:us-east-1:000000000000:report/p-tests:test']]);
    expect(results.summary).toContain(
      "• test: failed (exit 1) — `sh -c tsx --test`; failing tests (CodeBuild's test report): test > cart > applies the coupon; test > rounds VAT",
    );
    expect(results.feedback[1]).toContain(
      'Check "test" exited 1. Its failing tests (CodeBuild\'s test report): test > cart > applies the coupon; test > rounds VAT. The end of its output:',
    );
  });

  it("does not read a passed check's report: it decides nothing", async () => {
    let asked = 0;
    const results = await readBuildResults(
      {
        conversationId: 'c',
        attempt: 1,
        checks: definitions('test'),
        builds: [outcome('test', 'SUCCEEDED')],
      },
      noLogs,
      async () => {
        asked += 1;
        return read([]);
      },
    );
    expect(asked).toBe(0);
    expect(results.passed).toBe(true);
    expect(results.checks[0]?.tests).toBeUndefined();
  });

  it('says when the list is cut, and names no tests without a usable report', async () => {
    const many = Array.from({ length: 8 }, (_, i) => `test > case ${i}`);
    const check = (tests: TestReport) => ({ name: 'test', exitCode: 1, skipped: false, tail: '', tests });
    const summaryOf = async (tests: TestReport) =>
      (await buildResults({ attempt: 1, status: 'FAILED', checks: [check(tests)] })).summary;
    expect(await summaryOf(read(many, false))).toContain('test > case 4 (and 3 more, not all listed)');
    expect(await summaryOf({ status: 'missing', reason: 'the build has no test report' })).not.toContain(
      'failing tests',
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

  it('names a test by its prefix, suite and name, a repeated part once', async () => {
    const failed = (testCase: TestCase) => reportOf([{ ...testCase, status: 'FAILED' }]);
    expect(
      await failed({
        prefix: 'test/cart.test.ts',
        testSuiteName: 'test/cart.test.ts',
        name: 'cart > coupon',
      }),
    ).toMatchObject({ failed: ['test/cart.test.ts > cart > coupon'] });
    expect(await failed({ prefix: 'test', testSuiteName: 'cart', name: 'adds VAT' })).toMatchObject({
      failed: ['test > cart > adds VAT'],
    });
  });
});
