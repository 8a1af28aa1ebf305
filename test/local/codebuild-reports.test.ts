import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BatchGetReportsCommand,
  type CodeBuildClient,
  DescribeTestCasesCommand,
  type Report,
  StartBuildCommand,
  type TestCase,
} from '@aws-sdk/client-codebuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBuildTestReports } from '../../lambdas/builds/read-test-report.ts';
import { parseJunit } from '../../local/codebuild/junit.ts';
import { reportFiles } from '../../local/codebuild/reports.ts';
import { createProject, finished, makeRepository, startCodeBuild } from './codebuild.harness.ts';

/**
 * CodeBuild's test reports in the sandbox, through the real `@aws-sdk/client-codebuild` (its
 * deserializers are AWS's models of BatchGetBuilds, BatchGetReports and DescribeTestCases):
 * a buildspec's `reports:` group reads the JUnit XML that Node's test runner writes in the
 * build, the build lists the report in `reportArns`, and the test cases come back per status.
 */

let cb: Awaited<ReturnType<typeof startCodeBuild>>;
let repo: ReturnType<typeof makeRepository>;

const TESTS = `import { test, describe } from 'node:test';
import assert from 'node:assert';
describe('cart', () => {
  test('adds VAT', () => {});
  test('applies the coupon first', () => { assert.equal(1, 2); });
});
test('skipped one', { skip: true }, () => {});
`;

beforeAll(async () => {
  cb = await startCodeBuild({ minuteMs: 60_000 });
  repo = makeRepository({
    'cart.test.ts': TESTS,
    // Two files with a test named alike: Node's JUnit report names no file, so one name.
    'a.test.ts': `import { test } from 'node:test';\nimport assert from 'node:assert';\ntest('rounds VAT', () => { assert.equal(1, 2); });\n`,
    'b.test.ts': `import { test } from 'node:test';\ntest('rounds VAT', () => {});\ntest('adds', () => {});\n`,
  });
  await createProject(cb.client, 'reports', repo.path, 'version: 0.2\nphases: {}\n');
});
afterAll(async () => {
  await cb?.close();
  repo?.remove();
});

const buildspec = (command: string) =>
  JSON.stringify({
    version: 0.2,
    phases: { build: { commands: [command] } },
    reports: { tests: { files: ['.check-junit.xml'], 'file-format': 'JUNITXML' } },
  });

const LISTED = 'arn:aws:codebuild:us-east-1:000000000000:report/checks-tests:1';

/** What the workflows read of the build `buildArn` listing one report, `LISTED`, made as `made` says (no cases). */
function readListed(buildArn: string, made: Pick<Report, 'executionId' | 'reportGroupArn'>) {
  const report: Report = {
    arn: LISTED,
    status: 'SUCCEEDED',
    testSummary: { total: 0, statusCounts: {}, durationInNanoSeconds: 0 },
    ...made,
  };
  const client = {
    send: async (command: unknown) =>
      command instanceof BatchGetReportsCommand ? { reports: [report] } : { testCases: [] },
  } as unknown as CodeBuildClient;
  return codeBuildTestReports(client)({ arn: buildArn, reportArns: [LISTED] });
}

/** A build of Node's test runner on `files`, its JUnit report declared, run to its end. */
async function nodeTestBuild(files: string) {
  const started = await cb.client.send(
    new StartBuildCommand({
      projectName: 'reports',
      buildspecOverride: buildspec(
        `tsx --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=.check-junit.xml ${files}`,
      ),
    }),
  );
  return finished(cb.client, started.build?.id ?? '');
}

describe("the sandbox CodeBuild's test reports", () => {
  it('keeps the JUnit report of a failed build and serves it through BatchGetReports and DescribeTestCases', async () => {
    const done = await nodeTestBuild('cart.test.ts');
    expect(done.buildStatus).toBe('FAILED');
    expect(done.reportArns).toHaveLength(1);
    const arn = done.reportArns?.[0] ?? '';
    expect(arn).toMatch(/^arn:aws:codebuild:us-east-1:000000000000:report\/reports-tests:[0-9a-f-]{36}$/);

    const { reports, reportsNotFound } = await cb.client.send(
      new BatchGetReportsCommand({ reportArns: [arn, `${arn}x`] }),
    );
    expect(reportsNotFound).toEqual([`${arn}x`]);
    expect(reports?.[0]).toMatchObject({
      arn,
      type: 'TEST',
      name: 'reports-tests',
      reportGroupArn: 'arn:aws:codebuild:us-east-1:000000000000:report-group/reports-tests',
      executionId: done.arn,
      status: 'FAILED',
      exportConfig: { exportConfigType: 'NO_EXPORT' },
      truncated: false,
      testSummary: { total: 3, statusCounts: { SUCCEEDED: 1, FAILED: 1, SKIPPED: 1 } },
    });
    expect(reports?.[0]?.created).toBeInstanceOf(Date);

    // One case per page: the token carries on, and the last page has none.
    const cases: TestCase[] = [];
    let nextToken: string | undefined;
    do {
      const page = await cb.client.send(
        new DescribeTestCasesCommand({ reportArn: arn, maxResults: 1, nextToken }),
      );
      cases.push(...(page.testCases ?? []));
      nextToken = page.nextToken;
    } while (nextToken !== undefined);
    expect(cases.map((c) => [c.name, c.status]).sort()).toEqual([
      ['adds VAT', 'SUCCEEDED'],
      ['applies the coupon first', 'FAILED'],
      ['skipped one', 'SKIPPED'],
    ]);
    expect(cases.find((c) => c.status === 'FAILED')).toMatchObject({
      reportArn: arn,
      testSuiteName: 'cart',
      message: '1 == 2',
    });
    expect(cases[1]?.expired).toBeInstanceOf(Date);

    const failed = await cb.client.send(
      new DescribeTestCasesCommand({ reportArn: arn, filter: { status: 'FAILED' } }),
    );
    expect(failed.testCases?.map((c) => c.name)).toEqual(['applies the coupon first']);
    await expect(
      cb.client.send(new DescribeTestCasesCommand({ reportArn: `${arn}x` })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it("gives the workflows' reader a failed test whose name a passing test of another file shares as shared", async () => {
    const done = await nodeTestBuild('a.test.ts b.test.ts');
    expect(done.buildStatus).toBe('FAILED');

    const report = await codeBuildTestReports(cb.client)({
      arn: done.arn,
      reportArns: done.reportArns ?? [],
    });

    expect(report).toEqual({
      status: 'read',
      total: 3,
      failed: ['test > rounds VAT'],
      complete: true,
      shared: ['test > rounds VAT'],
    });
  });

  it("reads no report that is not the build's own: another build's, or any of a build whose ARN is not known", async () => {
    const [one, other] = await Promise.all([nodeTestBuild('cart.test.ts'), nodeTestBuild('cart.test.ts')]);
    const read = codeBuildTestReports(cb.client);
    expect(await read({ arn: one.arn, reportArns: one.reportArns ?? [] })).toMatchObject({ status: 'read' });
    // The other build's report listed as this one's: its execution is the other build.
    expect(await read({ arn: one.arn, reportArns: other.reportArns ?? [] })).toEqual({
      status: 'missing',
      reason: `report ${other.reportArns?.[0]} was not made by this build (its execution is ${other.arn})`,
    });
    expect(await read({ arn: undefined, reportArns: one.reportArns ?? [] })).toEqual({
      status: 'missing',
      reason: "the build's ARN is not known, so its reports cannot be checked",
    });
  });

  it("reads a report made by the build in its project's group, and none kept in another project's", async () => {
    const buildArn = 'arn:aws:codebuild:us-east-1:000000000000:build/checks:0b6c2a36';
    const group = (name: string) => `arn:aws:codebuild:us-east-1:000000000000:report-group/${name}`;
    expect(
      await readListed(buildArn, { executionId: buildArn, reportGroupArn: group('checks-tests') }),
    ).toEqual({
      status: 'read',
      total: 0,
      failed: [],
      complete: true,
      shared: [],
    });
    // Made by the build, but kept in a group of another project (a name that only starts alike).
    expect(
      await readListed(buildArn, { executionId: buildArn, reportGroupArn: group('checks-base-tests') }),
    ).toEqual({
      status: 'missing',
      reason: `report ${LISTED} is not in this build's report group (it is in ${group('checks-base-tests')})`,
    });
    // An ARN that is not a build's names no report group: not even its project's is its own.
    const projectArn = 'arn:aws:codebuild:us-east-1:000000000000:project/checks';
    expect(
      await readListed(projectArn, { executionId: projectArn, reportGroupArn: group('checks-tests') }),
    ).toEqual({
      status: 'missing',
      reason: `report ${LISTED} is not in this build's report group (it is in ${group('checks-tests')})`,
    });
  });

  it('makes an INCOMPLETE report when the runner wrote no file', async () => {
    const started = await cb.client.send(
      new StartBuildCommand({ projectName: 'reports', buildspecOverride: buildspec('echo no report') }),
    );
    const done = await finished(cb.client, started.build?.id ?? '');
    expect(done.buildStatus).toBe('SUCCEEDED');
    const { reports } = await cb.client.send(
      new BatchGetReportsCommand({ reportArns: done.reportArns ?? [] }),
    );
    expect(reports?.[0]).toMatchObject({ status: 'INCOMPLETE', testSummary: { total: 0 } });
  });
});

describe('JUnit XML and report file patterns', () => {
  it("reads vitest's nested suites, errors and empty failures", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="3" failures="1" errors="1">
  <testsuite name="test/cart.test.ts" tests="3">
    <testcase classname="test/cart.test.ts" name="cart &gt; adds VAT" time="0.002"/>
    <testcase classname="test/cart.test.ts" name="cart &gt; coupon" time="0.010"><failure/></testcase>
    <testcase classname="test/cart.test.ts" name="cart &gt; total" time="0.001"><error message="boom">stack</error></testcase>
  </testsuite>
</testsuites>`;
    expect(parseJunit(xml)).toEqual([
      {
        name: 'cart > adds VAT',
        prefix: 'test/cart.test.ts',
        suite: 'test/cart.test.ts',
        status: 'SUCCEEDED',
        durationInNanoSeconds: 2_000_000,
      },
      {
        name: 'cart > coupon',
        prefix: 'test/cart.test.ts',
        suite: 'test/cart.test.ts',
        status: 'FAILED',
        durationInNanoSeconds: 10_000_000,
        message: '',
      },
      {
        name: 'cart > total',
        prefix: 'test/cart.test.ts',
        suite: 'test/cart.test.ts',
        status: 'ERROR',
        durationInNanoSeconds: 1_000_000,
        message: 'boom',
      },
    ]);
    expect(() => parseJunit('<html></html>')).toThrow('no <testsuites> or <testsuite> element');
  });

  it('matches the buildspec patterns CodeBuild takes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-patterns-'));
    try {
      for (const file of [
        '.check-junit.xml',
        'junit.xml',
        'junit.xmlx',
        'reports/unit/junit.xml',
        'reports/a/b.xml',
      ]) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), '');
      }
      const matched = async (pattern: string) =>
        (await reportFiles([{ name: 'tests', files: [pattern] }], dir)).sort();
      expect(await matched('.check-junit.xml')).toEqual(['.check-junit.xml']);
      expect(await matched('**/*.xml')).toEqual([
        '.check-junit.xml',
        'junit.xml',
        'reports/a/b.xml',
        'reports/unit/junit.xml',
      ]);
      expect(await matched('reports/**')).toEqual(['reports/a/b.xml', 'reports/unit/junit.xml']);
      expect(await matched('reports/*.xml')).toEqual([]);
      expect(await matched('*.xml')).toEqual(['.check-junit.xml', 'junit.xml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
