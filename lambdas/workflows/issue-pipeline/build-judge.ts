import type { BuildResults, TestReport } from '../../builds/contract.ts';
import type { HandOff } from './contract.ts';
import { toWriter } from './hand-off.ts';
import { notesFor } from './notes.ts';
import type { IssueState } from './state.ts';

/**
 * The Build stage's verdict (its build agent, in code): the change's checks, judged
 * against the base commit's. A check that fails on the base commit too is reported as
 * pre-existing and not blamed on the change, so a repository with a red test or two can still
 * be worked on; the base's results are cached per commit (one base build per base commit).
 */

const SEED_COMMANDS: Record<string, string> = {
  install: 'install',
  test: 'npm test',
  lint: 'npm run lint',
  typecheck: 'npm run typecheck',
};

const failed = (check: BuildResults['checks'][number]) => !check.skipped && check.exitCode !== 0;

/** A check that ran to its end and failed (not refused, not cut short by its build). */
const ranAndFailed = (check: BuildResults['checks'][number]) =>
  failed(check) && check.refused === undefined && check.exitCode !== undefined;

/** A failing check of the change: excused as pre-existing or not, and why, for people. */
export interface FailingCheck {
  name: string;
  preExisting: boolean;
  /** How the tests decided it, where the check's runner reports per test. */
  detail?: string;
  /**
   * Excused only on the change's own test report (every test it names as failing fails on the
   * base too): that report is written inside the code under test, which can leave a failure
   * out, so the excuse is a person's to grant (report-excuse.ts), never the judge's.
   */
  onOwnReport?: true;
  /**
   * Excused as a whole although the check's runner reports per test, because the base
   * commit's run left no per-test report to match against: every failure of the change in
   * that check would pass unseen, so the excuse is a person's to grant too (report-excuse.ts).
   */
  baseUnreported?: true;
}

/**
 * The checks of the change that fail, and which of them fail on the base commit too. Only a
 * check that ran to its end and failed on both is pre-existing: one refused because the branch
 * broke its definition, or one whose build was killed, timed out or lost, never is. Where the
 * base's run of the check has per-test results (its runner writes JUnit), it is judged per
 * test (`perTest`); otherwise, as a whole.
 */
function failingChecks(branch: BuildResults, base: BuildResults | undefined): FailingCheck[] {
  const baseChecks = new Map((base?.checks ?? []).filter(ranAndFailed).map((c) => [c.name, c]));
  return branch.checks.filter(failed).map((c) => {
    const onBase = baseChecks.get(c.name);
    if (!ranAndFailed(c) || onBase === undefined) return { name: c.name, preExisting: false };
    // No per-test runner: judged as a whole, on CodeBuild's statuses alone.
    if (onBase.tests === undefined) return { name: c.name, preExisting: true };
    if (onBase.tests.status === 'missing')
      return {
        name: c.name,
        preExisting: true,
        detail: `the base commit's run left no per-test report (${onBase.tests.reason}), so judged as a whole check`,
        baseUnreported: true,
      };
    const judged = perTest(c.tests, onBase.tests);
    return { name: c.name, ...judged, ...(judged.preExisting ? { onOwnReport: true as const } : {}) };
  });
}

/**
 * A check that failed on both, judged per test: a test failing on the base excuses only
 * itself, and only when no other test of either report carries its name (Node's JUnit
 * reporter names no file: two files' tests named alike are one name, and a failure of either
 * is never excused by the other's). The base's report comes from the base commit's own build;
 * the change's is written inside the code under test, which can leave out a failure of its
 * own: so `preExisting` here is only a proposal, which the pipeline puts to a person before a
 * pull request (report-excuse.ts). Without a usable report, with an incomplete list, or with
 * no failing test while the check failed (a report that contradicts the check's own status),
 * nothing is proposed.
 */
export function perTest(
  branch: TestReport | undefined,
  base: Extract<TestReport, { status: 'read' }>,
): { preExisting: boolean; detail: string } {
  if (branch === undefined || branch.status === 'missing')
    return {
      preExisting: false,
      detail: `no per-test report of the change (${branch?.status === 'missing' ? branch.reason : 'none read'}), so its failures cannot be matched to the base's`,
    };
  if (!branch.complete || !base.complete)
    return {
      preExisting: false,
      detail: "too many failing tests to list, so they cannot be matched to the base's",
    };
  if (branch.failed.length === 0)
    return { preExisting: false, detail: 'the check failed, but its report names no failing test' };
  const onBase = new Set(base.failed);
  // A name several tests carry (no file in the report, say) matches none of them for sure.
  const shared = new Set([...(base.shared ?? []), ...(branch.shared ?? [])]);
  const fresh = branch.failed.filter((name) => !onBase.has(name));
  const namesakes = branch.failed.filter((name) => onBase.has(name) && shared.has(name));
  if (fresh.length > 0 || namesakes.length > 0)
    return {
      preExisting: false,
      detail: [
        ...(fresh.length > 0 ? [`failing tests that pass on the base commit: ${listed(fresh)}`] : []),
        ...(namesakes.length > 0
          ? [
              `failing tests whose name other tests share (the report names no file), so they cannot be matched to the base's: ${listed(namesakes)}`,
            ]
          : []),
      ].join('. '),
    };
  return {
    preExisting: true,
    detail: `every failing test the change's own report names fails on the base commit too: ${branch.failed.slice(0, 10).join('; ')}`,
  };
}

/** Up to ten test names, and how many more. */
function listed(names: readonly string[]): string {
  return `${names.slice(0, 10).join('; ')}${names.length > 10 ? ` (and ${names.length - 10} more)` : ''}`;
}

/** How a failing check was matched to the base's, for the pull request and the writer. */
function judgedText(failing: FailingCheck | undefined): { judged?: string } {
  if (failing === undefined) return {};
  if (failing.detail !== undefined) return { judged: failing.detail.slice(0, 600) };
  return failing.preExisting ? { judged: 'no per-test report, so judged as a whole check' } : {};
}

/**
 * Why the builds themselves fail the change, whatever the checks say: one that did not end
 * SUCCEEDED or FAILED (timed out, stopped, lost, never started), or none at all. A FAILED build is
 * judged by its checks: each failed one is named, excused only where it is pre-existing.
 */
function buildsProblem(branch: BuildResults): string | undefined {
  if (branch.status === 'SUCCEEDED' || branch.status === 'FAILED') return undefined;
  return `the build ended ${branch.status}: ${branch.summary}`.slice(0, 2_000);
}

/** Whether the base commit's results are needed: something failed and they are not known yet. */
export function needsBase(branch: BuildResults, base: BuildResults | undefined): boolean {
  return base === undefined && branch.checks.some(failed);
}

/** Writes the build section and decides: the reviewer (green, or red only where the base is), or the writer. */
export function judgeBuild(
  state: IssueState,
  branch: BuildResults,
  base: BuildResults | undefined,
): { state: IssueState; handOff: HandOff } {
  const failing = failingChecks(branch, base);
  const preExisting = new Set(failing.filter((f) => f.preExisting).map((f) => f.name));
  const blamed = failing.filter((f) => !f.preExisting);
  // Only a check that ran can have passed: one the base does not define is not claimed.
  const ok = (name: string) => {
    const check = branch.checks.find((c) => c.name === name);
    if (check === undefined || check.skipped || check.refused !== undefined) return false;
    return check.exitCode === 0 || preExisting.has(name);
  };
  // A build that ran no check at all (it could not start, or died first), or that ended other
  // than SUCCEEDED or FAILED, is a failure of its own.
  const problem = buildsProblem(branch);
  const noChecks = (branch.checks.length === 0 && !branch.passed) || problem !== undefined;
  state.build = {
    completed: true,
    // The commit these checks built (absent: a build whose head was not passed on, which no
    // review can approve).
    built_head: branch.headSha ?? null,
    tests_passed: ok('test') && !noChecks,
    lint_passed: ok('lint') && !noChecks,
    type_check_passed: ok('typecheck') && !noChecks,
    errors: [
      ...blamed.map((f) =>
        `${f.name} failed${f.detail === undefined ? '' : `: ${f.detail}`}`.slice(0, 1_000),
      ),
      ...failing
        .filter((f) => f.preExisting)
        .map((f) =>
          f.detail === undefined
            ? `${f.name} fails on the base commit too (pre-existing; no per-test report, so judged as a whole check)`
            : `${f.name} fails on the base commit too (pre-existing): ${f.detail}`.slice(0, 1_000),
        ),
      ...(noChecks ? [problem ?? branch.summary.slice(0, 2_000)] : []),
    ].slice(0, 20),
    commands_run: branch.checks
      .filter((c) => !c.skipped)
      .slice(0, 10)
      .map((c) => ({
        command: (c.refused !== undefined
          ? `${c.name} not run: ${c.refused}`
          : (c.command ?? SEED_COMMANDS[c.name] ?? c.name)
        ).slice(0, 200),
        exit_code: c.exitCode ?? null,
        output: c.tail.slice(-2_000),
        pre_existing: preExisting.has(c.name),
        ...judgedText(failing.find((f) => f.name === c.name)),
        ...(failing.some((f) => f.name === c.name && f.onOwnReport) ? { on_own_report: true } : {}),
        ...(failing.some((f) => f.name === c.name && f.baseUnreported) ? { base_unreported: true } : {}),
        check: c.name.slice(0, 50),
        ...(c.source === undefined ? {} : { source: c.source.slice(0, 200) }),
      })),
  };
  if (blamed.length === 0 && !noChecks) {
    state.pipeline.current_agent = 'reviewer';
    return {
      state,
      handOff: { next: 'reviewer', attempt: state.pipeline.attempt, notes: notesFor('reviewer', state) },
    };
  }
  const feedback = [
    ...branch.feedback.filter(
      (line) => !/^Check "([^"]+)"/.test(line) || blamed.some((b) => line.startsWith(`Check "${b.name}"`)),
    ),
    ...blamed.flatMap((b) => (b.detail === undefined ? [] : [`Check "${b.name}": ${b.detail}`])),
  ].join('\n\n');
  return toWriter(state, feedback || branch.summary);
}
