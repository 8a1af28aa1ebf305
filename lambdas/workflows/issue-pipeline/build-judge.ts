import type { BuildResults } from '../../builds/contract.ts';
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

/**
 * The checks of the change that fail, and which of them fail on the base commit too. Only a
 * check that ran to its end and failed on both is pre-existing: one refused because the branch
 * broke its definition, or one whose build was killed, timed out or lost, never is.
 */
export function failingChecks(
  branch: BuildResults,
  base: BuildResults | undefined,
): { name: string; preExisting: boolean }[] {
  const baseFailing = new Set((base?.checks ?? []).filter(ranAndFailed).map((c) => c.name));
  return branch.checks
    .filter(failed)
    .map((c) => ({ name: c.name, preExisting: ranAndFailed(c) && baseFailing.has(c.name) }));
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
    tests_passed: ok('test') && !noChecks,
    lint_passed: ok('lint') && !noChecks,
    type_check_passed: ok('typecheck') && !noChecks,
    errors: [
      ...blamed.map((f) => `${f.name} failed`),
      ...[...preExisting].map((name) => `${name} fails on the base commit too (pre-existing)`),
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
  const feedback = branch.feedback
    .filter(
      (line) => !/^Check "([^"]+)"/.test(line) || blamed.some((b) => line.startsWith(`Check "${b.name}"`)),
    )
    .join('\n\n');
  return toWriter(state, feedback || branch.summary);
}
