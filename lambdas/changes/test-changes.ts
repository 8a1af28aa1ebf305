import { type BranchDiff, type ChangedFile, describeChange } from './changed-files.ts';

/**
 * The tests a work branch added, changed or deleted, for the reviewer: test code runs inside
 * the test runner and can make its own check pass, so what a branch does to tests is shown
 * apart from the other files, with the assertion lines it removes (a deleted or weakened
 * assertion is visible without opening the diff). Decided on the branch's diff, never on an
 * agent's report.
 */

/** Test files by the usual conventions: a tests directory, `*.test.*`/`*.spec.*`, `test_*.py`, `*_test.go`. */
const TEST_PATH =
  /(^|\/)(tests?|__tests__|specs?)\/|\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)test_[^/]*\.py$|_test\.(py|go)$/i;

/** A line that asserts something, in the common test libraries. */
const ASSERTION = /\b(assert\w*|expect|should|t\.(is|ok|equal|deepEqual|throws))\b/;

/** Assertion lines shown per file at most, and characters per line. */
const SHOWN_LINES = 5;
const LINE_CHARS = 160;

export interface TestChange {
  file: ChangedFile;
  /** The assertion lines the change removes (from the patch), each cut to 160 characters. */
  removedAssertions: string[];
}

function isTestPath(path: string): boolean {
  return TEST_PATH.test(path);
}

/** The test files among the diff's, with the assertion lines each removes. */
export function testChanges(diff: BranchDiff): TestChange[] {
  return diff.files
    .filter((f) => isTestPath(f.path) || (f.previousPath !== undefined && isTestPath(f.previousPath)))
    .map((file) => ({
      file,
      removedAssertions: (file.patch ?? '')
        .split('\n')
        .filter((line) => line.startsWith('-') && !line.startsWith('---') && ASSERTION.test(line))
        .map((line) => line.slice(1).trim().slice(0, LINE_CHARS)),
    }));
}

function removedText(change: TestChange): string {
  const n = change.removedAssertions.length;
  if (n > 0) return `, ${n} assertion line${n === 1 ? '' : 's'} removed`;
  if (change.file.status === 'removed') return ', every assertion in it removed';
  return '';
}

/** The pull request's part: one line per test file, and the assertion lines each removes. */
export function testChangesSection(changes: readonly TestChange[]): string {
  if (changes.length === 0) return '';
  const lines = [
    '**Tests the branch added, changed or deleted** (test code can make its own check pass: read these)',
  ];
  for (const change of changes) {
    lines.push(`- ${describeChange(change.file)}${removedText(change)}`);
    for (const line of change.removedAssertions.slice(0, SHOWN_LINES)) lines.push(`  - removed: \`${line}\``);
    if (change.removedAssertions.length > SHOWN_LINES)
      lines.push(`  - … and ${change.removedAssertions.length - SHOWN_LINES} more`);
  }
  return lines.join('\n');
}

/** One line for an approval request: each test file and what it lost. */
export function testChangesLine(changes: readonly TestChange[]): string {
  if (changes.length === 0) return '';
  return `Tests the branch added, changed or deleted: ${changes.map((c) => `${describeChange(c.file)}${removedText(c)}`).join('; ')}`;
}
