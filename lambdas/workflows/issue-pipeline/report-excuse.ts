import type { IssueState } from './state.ts';

/**
 * A failing check excused on the change's own test report goes to a person before a pull
 * request. Judged per test, a check whose every failing test fails on the base commit too is
 * pre-existing; but the list of the change's failing tests is a JUnit report the test runner
 * writes inside the code under test, and that code can rewrite it (leaving a failure of its own
 * out, or naming only the base's red tests). No reading of that report can tell: it is the
 * change's claim. So the judge only proposes the excuse, and the approval wait (an approver's
 * button, which no code under test can press) grants it. An excuse that rests on CodeBuild's
 * statuses alone (the whole check fails on the base too, judged without a per-test report) needs
 * no one (docs/security-code-changes.md).
 */

/** How the approval request, and the escalation it is kept as, begin. */
export const OWN_REPORT_PREFIX = "A failing check is let through only on the change's own test report";

/** The approval request's text for the checks excused on the change's own report, if any. */
export function ownReportExcuse(state: IssueState): string | undefined {
  const runs = state.build.commands_run.filter((c) => c.pre_existing && c.on_own_report === true);
  if (runs.length === 0) return undefined;
  const lines = runs.map((c) => `• ${c.check ?? c.command}: ${c.judged ?? 'fails on the base commit too'}`);
  return [
    `${OWN_REPORT_PREFIX}, so a person decides whether it is pre-existing:`,
    ...lines,
    'That report is written inside the code under test, which can leave a failure of its own out: read the test changes before approving.',
  ].join('\n');
}
