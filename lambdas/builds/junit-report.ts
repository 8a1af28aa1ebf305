/**
 * Per-test results for the test check: where the base commit's test script is a runner that
 * writes JUnit XML (Vitest's `--reporter=junit`, Node's and tsx's `--test-reporter=junit`),
 * the check runs it with that reporter added beside its usual output, and the build's
 * buildspec declares the file as a CodeBuild report group (`reports:`). The workflow then reads
 * each test's status through the CodeBuild API (`DescribeTestCases`), never from the log. Any
 * other script runs as it is, and the check is judged as a whole.
 *
 * The file is written by the runner, inside the code under test's process: a test can forge it.
 * A forged report can only claim that tests passed; the check's own status (its build and BUILD
 * phase, from CodeBuild) decides first, and per-test results only ever narrow which failures
 * are excused as pre-existing (docs/security-code-changes.md).
 */

/** The report file, at the checkout's root (where the check's command runs). */
export const JUNIT_REPORT_FILE = '.check-junit.xml';

/** The buildspec's report group key: CodeBuild names the group `<project>-tests`. */
export const REPORT_GROUP = 'tests';

/** Shell syntax that makes a script more than one plain runner invocation. */
const COMPOUND = /[;&|`$()<>\n\\'"]/;

const VITEST = /^(?:npx\s+)?vitest(?:\s+run)?(?=\s|$)/;
const NODE_TEST = /^(?:node|tsx)\s(?:[^\s]+\s+)*?--test(?=\s|$)/;

/**
 * The script text with a JUnit reporter added, or undefined when the script is not one plain
 * call of a runner this knows (then nothing is added, and no report is expected).
 */
export function withJunitReport(script: string): string | undefined {
  const text = script.trim();
  if (COMPOUND.test(text)) return undefined;
  if (VITEST.test(text) && !/--reporter|--outputFile/.test(text))
    return `${text} --reporter=default --reporter=junit --outputFile.junit=${JUNIT_REPORT_FILE}`;
  const node = NODE_TEST.exec(text);
  if (node !== null && !/--test-reporter/.test(text)) {
    const flags = `--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=${JUNIT_REPORT_FILE}`;
    return `${node[0]} ${flags}${text.slice(node[0].length)}`;
  }
  return undefined;
}

/** The buildspec's `reports:` section for the test check's build. */
export function junitReports(): Record<string, unknown> {
  return { [REPORT_GROUP]: { files: [JUNIT_REPORT_FILE], 'file-format': 'JUNITXML' } };
}
