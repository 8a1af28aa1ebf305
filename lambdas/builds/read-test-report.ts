import {
  BatchGetReportsCommand,
  type CodeBuildClient,
  DescribeTestCasesCommand,
  type TestCase,
} from '@aws-sdk/client-codebuild';
import { MAX_FAILED_TESTS, MAX_TEST_NAME_CHARS, type TestReport } from './contract.ts';

/**
 * A checks build's per-test results from CodeBuild's report API: `BatchGetReports` for the
 * reports the build lists (`reportArns`), then `DescribeTestCases` of the failed and errored
 * cases. What the runner printed is never read: the cases are what CodeBuild parsed from the
 * report file.
 */

/** Reads the per-test results of a build's reports. */
export type ReadTestReport = (reportArns: readonly string[]) => Promise<TestReport>;

/** Pages of failed cases read at most per status (100 cases a page). */
const MAX_PAGES = 5;

/** A test's name for people and for matching: its prefix, suite and name, repeated parts once. */
export function testName(testCase: Pick<TestCase, 'prefix' | 'testSuiteName' | 'name'>): string {
  const parts: string[] = [];
  for (const part of [testCase.prefix, testCase.testSuiteName, testCase.name]) {
    const text = part?.trim();
    if (text && parts.at(-1) !== text) parts.push(text);
  }
  return parts.join(' > ').slice(0, MAX_TEST_NAME_CHARS);
}

export function codeBuildTestReports(client: CodeBuildClient): ReadTestReport {
  return async (reportArns) => {
    if (reportArns.length === 0) return { status: 'missing', reason: 'the build has no test report' };
    const { reports = [] } = await client.send(new BatchGetReportsCommand({ reportArns: [...reportArns] }));
    const usable = reports.filter((r) => r.arn !== undefined && r.status !== 'INCOMPLETE');
    if (usable.length === 0)
      return { status: 'missing', reason: 'the test runner wrote no report CodeBuild could read' };
    const failed = new Set<string>();
    let complete = true;
    let total = 0;
    for (const report of usable) {
      total += report.testSummary?.total ?? 0;
      for (const status of ['FAILED', 'ERROR'] as const) {
        let nextToken: string | undefined;
        let pages = 0;
        do {
          const page = await client.send(
            new DescribeTestCasesCommand({
              reportArn: report.arn,
              filter: { status },
              maxResults: 100,
              ...(nextToken === undefined ? {} : { nextToken }),
            }),
          );
          for (const testCase of page.testCases ?? []) failed.add(testName(testCase));
          nextToken = page.nextToken;
          pages += 1;
        } while (nextToken !== undefined && pages < MAX_PAGES);
        if (nextToken !== undefined) complete = false;
      }
    }
    const names = [...failed].sort();
    return {
      status: 'read',
      total,
      failed: names.slice(0, MAX_FAILED_TESTS),
      complete: complete && names.length <= MAX_FAILED_TESTS,
    };
  };
}
