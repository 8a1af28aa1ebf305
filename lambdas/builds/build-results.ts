import { safeCut } from '../redaction/index.ts';
import type { CheckDefinition } from './check-definitions.ts';
import { sourceText } from './check-definitions.ts';
import type { BuildResults, CheckResult } from './contract.ts';

/** Characters of each check's output kept (its tail, where a failure is reported). */
const CHECK_TAIL_CHARS = 1_500;

/**
 * The tail of `text`, at most `max` characters, marked when cut. The cut never falls inside a
 * secret or personal value the redaction layer finds: it moves past it, so no value's end is
 * kept without its beginning.
 */
export async function tail(text: string, max: number = CHECK_TAIL_CHARS): Promise<string> {
  if (text.length <= max) return text;
  return `…${text.slice(await safeCut(text, text.length - max + 1, 'tail'))}`;
}

/** One phase of a finished build, as CodeBuild reports it. */
export interface PhaseFacts {
  type: string;
  /** Absent: the phase never ended (the build stopped in it). */
  status?: string | undefined;
  /** CodeBuild's own message when the phase failed ("... Reason: exit status 2"). */
  message?: string | undefined;
}

/** One checks build, as CodeBuild reports it, and its log's lines. */
export interface BuildFacts {
  /** The check it ran (`install`: the install alone). */
  check: string;
  id?: string | undefined;
  /** The build's ARN: its test reports must name it as their execution. */
  arn?: string | undefined;
  /** CodeBuild's `buildStatus`; NOT_STARTED when StartBuild refused it. */
  status: string;
  phases: readonly PhaseFacts[];
  lines: readonly string[];
  /** Why it did not start or did not reach its check, for people. */
  problem?: string | undefined;
  /** The test reports CodeBuild kept of it (`reportArns`). */
  reportArns?: readonly string[] | undefined;
}

/** The exit status CodeBuild names in a failed phase's message, or 1 when it names none. */
function exitStatusOf(phase: PhaseFacts): number {
  const found = /exit status (\d+)/.exec(phase.message ?? '');
  return found?.[1] === undefined ? 1 : Number(found[1]);
}

/**
 * The output lines of one phase: between CodeBuild's `[Container] ... Entering phase <TYPE>` line
 * and the next `Entering phase`, without CodeBuild's own lines. The log is written by the code
 * under test as well, so this only ever picks the text shown to people, never a verdict.
 */
export function phaseOutput(lines: readonly string[], type: string): string {
  const entering = (line: string) => /^\[Container\] .*Entering phase ([A-Z_]+)\s*$/.exec(line)?.[1];
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    const phase = entering(line);
    if (phase !== undefined) inside = phase === type;
    else if (inside && !line.startsWith('[Container]')) out.push(line.replace(/\n$/, ''));
  }
  return out.join('\n');
}

/** The exit code a phase's status gives: 0 for SUCCEEDED, the named status for FAILED, none otherwise. */
function phaseCode(phase: PhaseFacts | undefined): number | undefined {
  if (phase?.status === 'SUCCEEDED') return 0;
  if (phase?.status === 'FAILED') return exitStatusOf(phase);
  return undefined;
}

function described(definition: CheckDefinition): Partial<CheckResult> {
  return {
    ...(definition.command === undefined ? {} : { command: definition.command.slice(0, 1_000) }),
    ...(definition.source === undefined ? {} : { source: sourceText(definition.source) }),
  };
}

/** The install's result: its phase in every build ran it (one failure fails it). */
async function installResult(
  definition: CheckDefinition,
  builds: readonly BuildFacts[],
): Promise<CheckResult> {
  const phases = builds.map((b) => ({ build: b, phase: b.phases.find((p) => p.type === 'INSTALL') }));
  const failed = phases.find((p) => p.phase?.status !== 'SUCCEEDED');
  const shown = failed ?? phases[0];
  const exitCode = failed === undefined ? (phases.length > 0 ? 0 : undefined) : phaseCode(failed.phase);
  return {
    name: 'install',
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(shown === undefined ? {} : { buildStatus: shown.build.status }),
    skipped: false,
    tail: await tail(shown === undefined ? '' : phaseOutput(shown.build.lines, 'INSTALL')),
    ...described(definition),
  };
}

/** A check that ran in its own build: passed only when that build and its BUILD phase SUCCEEDED. */
async function builtResult(definition: CheckDefinition, build: BuildFacts | undefined): Promise<CheckResult> {
  if (build === undefined)
    return {
      name: definition.name,
      skipped: false,
      tail: 'no build ran this check',
      ...described(definition),
    };
  const phase = build.phases.find((p) => p.type === 'BUILD');
  const code = phaseCode(phase);
  // A BUILD phase that succeeded in a build that did not (killed, timed out later) is no pass.
  const exitCode = code === 0 && build.status !== 'SUCCEEDED' ? undefined : code;
  const install = build.phases.find((p) => p.type === 'INSTALL');
  const output =
    phase === undefined && install?.status !== undefined && install.status !== 'SUCCEEDED'
      ? 'not run: the install failed in its build'
      : phaseOutput(build.lines, 'BUILD');
  return {
    name: definition.name,
    ...(exitCode === undefined ? {} : { exitCode }),
    buildStatus: build.status,
    skipped: false,
    tail: await tail(output),
    ...described(definition),
  };
}

/** Each defined check's result, from the statuses of the builds that ran them. */
export function checkResults(
  definitions: readonly CheckDefinition[],
  builds: readonly BuildFacts[],
): Promise<CheckResult[]> {
  return Promise.all(
    definitions.map(async (definition): Promise<CheckResult> => {
      if (definition.refused !== undefined)
        return {
          name: definition.name,
          skipped: false,
          tail: '',
          refused: definition.refused.slice(0, 1_000),
        };
      if (definition.command === undefined)
        return { name: definition.name, skipped: true, tail: definition.skipped ?? 'not defined' };
      if (definition.name === 'install') return installResult(definition, builds);
      return builtResult(
        definition,
        builds.find((b) => b.check === definition.name),
      );
    }),
  );
}

const STATUS_ORDER = ['FAULT', 'TIMED_OUT', 'STOPPED', 'NOT_STARTED', 'FAILED', 'IN_PROGRESS'];

/** The builds' status: SUCCEEDED when every one did, else the worst; NO_CHECKS without builds. */
export function overallStatus(builds: readonly BuildFacts[]): string {
  if (builds.length === 0) return 'NO_CHECKS';
  if (builds.every((b) => b.status === 'SUCCEEDED')) return 'SUCCEEDED';
  const rank = (status: string) => {
    const at = STATUS_ORDER.indexOf(status);
    return at === -1 ? 0 : STATUS_ORDER.length - at;
  };
  return [...builds].sort((a, b) => rank(b.status) - rank(a.status))[0]?.status ?? 'FAILED';
}

/** Failed test names shown in a check's line and told the fixer, at most. */
const SHOWN_TESTS = { line: 5, feedback: 20 } as const;

/**
 * A failing check's failed tests as CodeBuild's test report lists them (read through its API,
 * never from the log), for people and for the next attempt; '' without such a list.
 */
export function failingTestsText(check: CheckResult, shown: number): string {
  const tests = check.tests;
  if (tests?.status !== 'read' || tests.failed.length === 0) return '';
  const rest = tests.failed.length - shown;
  const more =
    rest > 0
      ? ` (and ${rest} more${tests.complete ? '' : ', not all listed'})`
      : tests.complete
        ? ''
        : ' (not all listed)';
  return `failing tests (CodeBuild's test report): ${tests.failed.slice(0, shown).join('; ')}${more}`;
}

function checkLine(check: CheckResult): string {
  if (check.skipped)
    return `• ${check.name}: skipped (${check.tail.trim() || 'not configured, no such script'})`;
  if (check.refused !== undefined) return `• ${check.name}: failed, not run: ${check.refused}`;
  const ran =
    check.command === undefined ? '' : ` — \`${check.command}\`${check.source ? ` ${check.source}` : ''}`;
  if (check.exitCode === undefined)
    return `• ${check.name}: did not finish${check.buildStatus ? ` (its build ${check.buildStatus})` : ''}${ran}`;
  const tests = failingTestsText(check, SHOWN_TESTS.line);
  return `• ${check.name}: ${check.exitCode === 0 ? 'passed' : `failed (exit ${check.exitCode})`}${ran}${tests === '' ? '' : `; ${tests}`}`;
}

/** The results of one build attempt, with what the fixer is told when it failed. */
export async function buildResults(input: {
  attempt: number;
  status: string;
  buildId?: string | undefined;
  buildIds?: readonly string[] | undefined;
  checks: readonly CheckResult[];
  /** Why the build failed when no check says so (it could not start, its source failed). */
  problem?: string | undefined;
}): Promise<BuildResults> {
  const failing = input.checks.filter((c) => !c.skipped && c.exitCode !== 0);
  // The builds' own status decides with the checks: a killed, timed-out or lost build fails.
  const passed = input.status === 'SUCCEEDED' && failing.length === 0;
  const lines = input.checks.map(checkLine);
  if (input.problem !== undefined) lines.push(`• build: ${await tail(input.problem, 300)}`);
  if (input.status === 'NO_CHECKS') lines.push('• build: no check is defined, so nothing judged the change');
  if (lines.length === 0) lines.push(`• build: ${input.status}`);
  const summary = await tail(
    `Build ${input.status.toLowerCase()} (attempt ${input.attempt}):\n${lines.join('\n')}`,
    2_000,
  );
  const problem = input.problem === undefined ? undefined : await tail(input.problem, 2_000);
  const feedback = passed
    ? []
    : [
        `Build attempt ${input.attempt} of your fix failed (${input.status}). Fix what the output shows, on the same branch, then submit again.`,
        ...failing.map((c) => {
          const tests = failingTestsText(c, SHOWN_TESTS.feedback);
          return `Check "${c.name}" ${c.refused !== undefined ? `was refused: ${c.refused}` : c.exitCode === undefined ? 'did not finish' : `exited ${c.exitCode}`}.${tests === '' ? '' : ` Its ${tests}.`} The end of its output:\n${c.tail}`;
        }),
        ...(problem === undefined ? [] : [`The build itself: ${problem}`]),
      ];
  return {
    attempt: input.attempt,
    passed,
    status: input.status,
    ...(input.buildId === undefined ? {} : { buildId: input.buildId }),
    ...(input.buildIds === undefined || input.buildIds.length === 0 ? {} : { buildIds: [...input.buildIds] }),
    checks: [...input.checks],
    summary,
    feedback,
  };
}
