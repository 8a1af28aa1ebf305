import type { IssueState } from './state.ts';

/**
 * A failing check excused on anything but CodeBuild's statuses goes to a person before a pull
 * request. Two cases:
 *
 * - **On the change's own test report.** Judged per test, a check whose every failing test
 *   fails on the base commit too is pre-existing; but the list of the change's failing tests is
 *   a JUnit report the test runner writes inside the code under test, and that code can rewrite
 *   it (leaving a failure of its own out, or naming only the base's red tests). No reading of
 *   that report can tell: it is the change's claim.
 * - **Without the base's per-test report.** The check's runner reports per test, but the base
 *   commit's run left no report CodeBuild kept (or one that was not its build's own): judged as
 *   a whole, one red test on the base would hide any number of new failures in that check.
 *
 * So the judge only proposes the excuse, and the approval wait (an approver's button, which no
 * code under test can press) grants it. An excuse that rests on CodeBuild's statuses alone (the
 * whole check fails on the base too, and its runner reports no tests) needs no one
 * (docs/security-code-changes.md).
 */

/** How the approval request, and the escalation it is kept as, begin: on the change's own report. */
const OWN_REPORT_PREFIX = "A failing check is let through only on the change's own test report";

/** How they begin: without the base commit's per-test report. */
const UNREPORTED_BASE_PREFIX =
  "A failing check is let through as a whole, without the base commit's per-test report";

/** Whether an escalation is an excuse a person grants (either kind). */
export function isExcuse(reason: string): boolean {
  return reason.startsWith(OWN_REPORT_PREFIX) || reason.startsWith(UNREPORTED_BASE_PREFIX);
}

/** What a rejection or a silence names as refused, for an excuse's escalation. */
export function excuseSubject(reason: string): string {
  return reason.startsWith(OWN_REPORT_PREFIX)
    ? "the failing check let through on the change's own test report"
    : "the failing check let through as a whole, without the base commit's per-test report";
}

type Run = IssueState['build']['commands_run'][number];

/** One approval request: what it is, a line per check, what to read before approving. */
function request(prefix: string, runs: readonly Run[], advice: string, tests: string): string[] {
  if (runs.length === 0) return [];
  const lines = runs.map((c) => `• ${c.check ?? c.command}: ${c.judged ?? 'fails on the base commit too'}`);
  const text = [`${prefix}, so a person decides whether it is pre-existing:`, ...lines, advice, tests];
  return [text.filter((line) => line !== '').join('\n')];
}

/**
 * The approval requests' texts for the checks a person must excuse, if any: one per kind, each
 * ending with `tests`, the test files the branch adds, changes or deletes (gate.ts).
 */
export function excusesToGrant(state: IssueState, tests = ''): string[] {
  const excused = state.build.commands_run.filter((c) => c.pre_existing);
  return [
    ...request(
      OWN_REPORT_PREFIX,
      excused.filter((c) => c.on_own_report === true),
      'That report is written inside the code under test, which can leave a failure of its own out: read the test changes before approving.',
      tests,
    ),
    ...request(
      UNREPORTED_BASE_PREFIX,
      excused.filter((c) => c.base_unreported === true),
      "Its runner reports each test, but there is none of the base's to match the change's failures against: any new failure in that check would pass unseen. Read the check's output before approving.",
      tests,
    ),
  ];
}
