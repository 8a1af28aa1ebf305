import {
  BatchGetReportsCommand,
  type CodeBuildClient,
  DescribeTestCasesCommand,
  type Report,
  type TestCase,
} from '@aws-sdk/client-codebuild';
import { MAX_FAILED_TESTS, MAX_TEST_NAME_CHARS, type TestReport } from './contract.ts';
import { REPORT_GROUP } from './junit-report.ts';

/**
 * A checks build's per-test results from CodeBuild's report API: `BatchGetReports` for the
 * reports the build lists (`reportArns`), then `DescribeTestCases` of every case, so that a
 * failed test whose name other cases share is known (`shared`): a failure is only ever matched
 * to the base's by its name, and a name two tests carry matches neither for sure. What the
 * runner printed is never read: the cases are what CodeBuild parsed from the report file.
 *
 * A report counts only if it is the build's own: made by that build (`executionId` is the
 * build's ARN) in that build's project's report group (`<project>-tests`, in the build's
 * account and region). A report made any other way (through the report API with a role's
 * credentials, say) is not read, and the build counts as having no usable report.
 */

/** The build whose reports are read: its ARN (`Build.Arn`) and the reports it lists. */
export interface ReportedBuild {
  arn: string | undefined;
  reportArns: readonly string[];
}

/** Reads the per-test results of a build's reports. */
export type ReadTestReport = (build: ReportedBuild) => Promise<TestReport>;

/** Pages of cases read at most per report (100 cases a page): 10,000 tests. */
const MAX_PAGES = 100;

const FAILING: ReadonlySet<string> = new Set(['FAILED', 'ERROR']);

/**
 * A test's name for people and for matching: its prefix (JUnit's `classname`: Vitest's is the
 * file), suite and name, repeated parts once. Node's reporter gives no file (its `classname`
 * is `test`), so two files' tests named alike get one name: `shared` says so.
 */
function testName(testCase: Pick<TestCase, 'prefix' | 'testSuiteName' | 'name'>): string {
  const parts: string[] = [];
  for (const part of [testCase.prefix, testCase.testSuiteName, testCase.name]) {
    const text = part?.trim();
    if (text && parts.at(-1) !== text) parts.push(text);
  }
  return parts.join(' > ').slice(0, MAX_TEST_NAME_CHARS);
}

/** The failed tests of `cases`, and those of them whose name more than one case carries. */
function failedTests(cases: readonly Pick<TestCase, 'prefix' | 'testSuiteName' | 'name' | 'status'>[]): {
  failed: string[];
  shared: string[];
} {
  const count = new Map<string, number>();
  const failed = new Set<string>();
  for (const testCase of cases) {
    const name = testName(testCase);
    count.set(name, (count.get(name) ?? 0) + 1);
    if (FAILING.has(testCase.status ?? '')) failed.add(name);
  }
  const names = [...failed].sort();
  return { failed: names, shared: names.filter((name) => (count.get(name) ?? 0) > 1) };
}

/**
 * The ARN of the report group a build's test report belongs in, from the build's ARN
 * (`arn:<partition>:codebuild:<region>:<account>:build/<project>:<id>`); undefined when the ARN
 * is not a build's.
 */
function ownReportGroupArn(buildArn: string): string | undefined {
  const match = /^arn:([^:]+):codebuild:([^:]+):(\d+):build\/([^:]+):[^:]+$/.exec(buildArn);
  if (match === null) return undefined;
  const [, partition, region, account, project] = match;
  return `arn:${partition}:codebuild:${region}:${account}:report-group/${project}-${REPORT_GROUP}`;
}

/** Why `report` is not `buildArn`'s own test report, or undefined when it is. */
function foreignReport(
  report: Pick<Report, 'arn' | 'executionId' | 'reportGroupArn'>,
  buildArn: string,
): string | undefined {
  if (report.executionId !== buildArn)
    return `report ${report.arn ?? '(no ARN)'} was not made by this build (its execution is ${report.executionId ?? 'not named'})`;
  const group = ownReportGroupArn(buildArn);
  if (report.reportGroupArn !== group)
    return `report ${report.arn ?? '(no ARN)'} is not in this build's report group (it is in ${report.reportGroupArn ?? 'none'})`;
  return undefined;
}

export function codeBuildTestReports(client: CodeBuildClient): ReadTestReport {
  return async ({ arn, reportArns }) => {
    if (reportArns.length === 0) return { status: 'missing', reason: 'the build has no test report' };
    if (arn === undefined)
      return { status: 'missing', reason: "the build's ARN is not known, so its reports cannot be checked" };
    const { reports = [] } = await client.send(new BatchGetReportsCommand({ reportArns: [...reportArns] }));
    // One report not of this build's own making spoils them all: which failures it hid is not known.
    const foreign = reports.map((r) => foreignReport(r, arn)).find((why) => why !== undefined);
    if (foreign !== undefined) return { status: 'missing', reason: foreign };
    const usable = reports.filter((r) => r.arn !== undefined && r.status !== 'INCOMPLETE');
    if (usable.length === 0)
      return { status: 'missing', reason: 'the test runner wrote no report CodeBuild could read' };
    const cases: TestCase[] = [];
    let complete = true;
    let total = 0;
    for (const report of usable) {
      total += report.testSummary?.total ?? 0;
      let nextToken: string | undefined;
      let pages = 0;
      do {
        const page = await client.send(
          new DescribeTestCasesCommand({
            reportArn: report.arn,
            maxResults: 100,
            ...(nextToken === undefined ? {} : { nextToken }),
          }),
        );
        cases.push(...(page.testCases ?? []));
        nextToken = page.nextToken;
        pages += 1;
      } while (nextToken !== undefined && pages < MAX_PAGES);
      if (nextToken !== undefined) complete = false;
    }
    const { failed, shared } = failedTests(cases);
    return {
      status: 'read',
      total,
      failed: failed.slice(0, MAX_FAILED_TESTS),
      complete: complete && failed.length <= MAX_FAILED_TESTS,
      shared: shared.slice(0, MAX_FAILED_TESTS),
    };
  };
}
