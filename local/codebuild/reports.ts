import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { ReportGroupSpec } from './buildspec.ts';
import { CodeBuildApiError, invalidInput } from './errors.ts';
import { type ParsedTestCase, parseJunit, type TestStatus } from './junit.ts';

/**
 * The test reports of CodeBuild's report groups: after a build's commands, the files each
 * `reports:` group of its buildspec names are read (JUnit XML), and one report per group is
 * kept, its ARN on the build (`reportArns`). `BatchGetReports` and `DescribeTestCases` read
 * them back in CodeBuild's shapes. A group's report group is `<project>-<group>`, created on
 * first use, as CodeBuild does for a group named only in the buildspec.
 */

/** A report, as BatchGetReports returns it. */
export interface Report {
  arn: string;
  type: 'TEST';
  name: string;
  reportGroupArn: string;
  executionId: string;
  /** SUCCEEDED when every case did (or was skipped), FAILED when one failed, INCOMPLETE without files. */
  status: 'SUCCEEDED' | 'FAILED' | 'INCOMPLETE';
  created: Date;
  expired: Date;
  exportConfig: { exportConfigType: 'NO_EXPORT' };
  truncated: boolean;
  testSummary: {
    total: number;
    statusCounts: Partial<Record<TestStatus, number>>;
    durationInNanoSeconds: number;
  };
}

/** A test case, as DescribeTestCases returns it. */
export interface TestCase {
  reportArn: string;
  testRawDataPath: string;
  prefix: string;
  name: string;
  status: TestStatus;
  durationInNanoSeconds: number;
  message?: string;
  expired: Date;
  testSuiteName?: string;
}

/** Test cases expire 30 days after they are created (CodeBuild's TestCase reference). */
const EXPIRY_MS = 30 * 86_400_000;
/** Files a group's patterns are matched against at most, and directories never searched. */
const MAX_FILES = 10_000;
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);

export class ReportStore {
  private readonly reports = new Map<string, { report: Report; cases: TestCase[] }>();

  constructor(
    private readonly region: string,
    private readonly account: string,
    private readonly now: () => Date,
  ) {}

  /** Reads each group's files under the build's checkout; the new reports' ARNs. */
  async collect(
    build: { arn: string; projectName: string },
    groups: readonly ReportGroupSpec[],
    sourceDir: string,
  ): Promise<string[]> {
    const arns: string[] = [];
    for (const group of groups) {
      const groupName = `${build.projectName}-${group.name}`;
      const arn = `arn:aws:codebuild:${this.region}:${this.account}:report/${groupName}:${randomUUID()}`;
      const base = resolve(sourceDir, group.baseDirectory ?? '.');
      const files = await groupFiles(group, base);
      const cases: TestCase[] = [];
      let unreadable = false;
      const created = this.now();
      for (const file of files) {
        let parsed: ParsedTestCase[];
        try {
          parsed = parseJunit(await readFile(join(base, file), 'utf8'));
        } catch {
          // CodeBuild skips a file it cannot parse; the report is then incomplete.
          unreadable = true;
          continue;
        }
        for (const testCase of parsed)
          cases.push({
            reportArn: arn,
            testRawDataPath: join(base, file),
            prefix: testCase.prefix,
            name: testCase.name,
            status: testCase.status,
            durationInNanoSeconds: testCase.durationInNanoSeconds,
            ...(testCase.message === undefined ? {} : { message: testCase.message }),
            expired: new Date(created.getTime() + EXPIRY_MS),
            ...(testCase.suite === undefined ? {} : { testSuiteName: testCase.suite }),
          });
      }
      const statusCounts: Partial<Record<TestStatus, number>> = {};
      for (const c of cases) statusCounts[c.status] = (statusCounts[c.status] ?? 0) + 1;
      const failed = cases.some((c) => c.status === 'FAILED' || c.status === 'ERROR');
      const report: Report = {
        arn,
        type: 'TEST',
        name: groupName,
        reportGroupArn: `arn:aws:codebuild:${this.region}:${this.account}:report-group/${groupName}`,
        executionId: build.arn,
        status: files.length === 0 || unreadable ? 'INCOMPLETE' : failed ? 'FAILED' : 'SUCCEEDED',
        created,
        expired: new Date(created.getTime() + EXPIRY_MS),
        exportConfig: { exportConfigType: 'NO_EXPORT' },
        truncated: false,
        testSummary: {
          total: cases.length,
          statusCounts,
          durationInNanoSeconds: cases.reduce((sum, c) => sum + c.durationInNanoSeconds, 0),
        },
      };
      this.reports.set(arn, { report, cases });
      arns.push(arn);
    }
    return arns;
  }

  batchGetReports(arns: readonly string[]): { reports: Report[]; reportsNotFound: string[] } {
    const reports: Report[] = [];
    const reportsNotFound: string[] = [];
    for (const arn of arns) {
      const entry = this.reports.get(arn);
      if (entry) reports.push(structuredClone(entry.report));
      else reportsNotFound.push(arn);
    }
    return { reports, reportsNotFound };
  }

  /** One page of a report's test cases (`maxResults` 1 to 1000, default 100), optionally by status. */
  describeTestCases(input: {
    reportArn: string;
    nextToken?: string | undefined;
    maxResults?: number | undefined;
    filter?: { status?: string | undefined; keyword?: string | undefined } | undefined;
  }): { testCases: TestCase[]; nextToken?: string } {
    const entry = this.reports.get(input.reportArn);
    if (!entry)
      throw new CodeBuildApiError('ResourceNotFoundException', `Report cannot be found: ${input.reportArn}`);
    const status = input.filter?.status;
    const keyword = input.filter?.keyword;
    const matching = entry.cases.filter(
      (c) =>
        (status === undefined || c.status === status) &&
        (keyword === undefined || c.name.includes(keyword) || c.prefix.includes(keyword)),
    );
    const start = input.nextToken === undefined ? 0 : Number.parseInt(input.nextToken, 10);
    if (!Number.isInteger(start) || start < 0 || start > matching.length)
      throw invalidInput(`Invalid nextToken: ${input.nextToken}`);
    const size = input.maxResults ?? 100;
    const page = matching.slice(start, start + size);
    const next = start + page.length;
    return {
      testCases: structuredClone(page),
      ...(next < matching.length ? { nextToken: String(next) } : {}),
    };
  }

  clear(): void {
    this.reports.clear();
  }
}

/** The files of the checkout at `sourceDir` that `groups` read (relative to `sourceDir`, `/`-separated). */
export async function reportFiles(groups: readonly ReportGroupSpec[], sourceDir: string): Promise<string[]> {
  const found = new Set<string>();
  for (const group of groups) {
    const base = resolve(sourceDir, group.baseDirectory ?? '.');
    for (const file of await groupFiles(group, base)) {
      const path = relative(sourceDir, join(base, file)).split(sep).join('/');
      // A base directory outside the checkout reads nothing of it.
      if (!path.startsWith('../')) found.add(path);
    }
  }
  return [...found];
}

/** The files under `base` one group's patterns match. */
async function groupFiles(group: ReportGroupSpec, base: string): Promise<string[]> {
  return (await listFiles(base)).filter((file) => group.files.some((p) => globMatches(p, file)));
}

/** Every file under `base` (relative, `/`-separated), without `.git` and `node_modules`. */
async function listFiles(base: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (found.length >= MAX_FILES) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) await walk(path);
      else if (entry.isFile()) found.push(relative(base, path).split(sep).join('/'));
    }
  };
  await walk(base);
  return found;
}

/** A buildspec `files` pattern: `**` across directories, `*` and `?` within a name. */
function globMatches(pattern: string, path: string): boolean {
  const segments = pattern.replace(/^\.\//, '').split('/');
  const source = segments
    .map((segment, i) => {
      if (segment === '**') return i === segments.length - 1 ? '.*' : '(?:.*/)?';
      const name = segment
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '[^/]*')
        .replaceAll('?', '[^/]');
      return i === segments.length - 1 ? name : `${name}/`;
    })
    .join('');
  return new RegExp(`^${source}$`).test(path);
}
