import { CHECK_BEGIN, CHECK_COMMAND, CHECK_END, CHECK_SKIPPED } from './buildspec.ts';
import type { BuildResults, CheckResult } from './contract.ts';

/** Characters of each check's output kept (its tail, where a failure is reported). */
export const CHECK_TAIL_CHARS = 1_500;

/** The tail of `text`, at most `max` characters, marked when cut. */
export function tail(text: string, max: number = CHECK_TAIL_CHARS): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

type Announced = { command?: string; source?: string; refused?: string };

/** A check's announcement (its first line): the command and its origin. Only the first counts. */
function announcement(json: string): Announced {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value !== 'object' || value === null) return {};
    const pick = (key: string) => {
      const v = (value as Record<string, unknown>)[key];
      return typeof v === 'string' ? { [key]: v } : {};
    };
    return { ...pick('command'), ...pick('source'), ...pick('refused') };
  } catch {
    return {};
  }
}

/**
 * Each check's exit code and output from the build's log lines: the lines between
 * `::check-begin::<name>` and `::check-end::<name>::<code>`. A check with a begin and no end
 * never finished (the build timed out or was stopped). CodeBuild's own `[Container]` lines
 * are left out of a check's output.
 */
export function parseChecks(lines: readonly string[]): CheckResult[] {
  const checks: CheckResult[] = [];
  let current: { name: string; output: string[]; skipped: boolean; announced?: Announced } | undefined;
  const close = (exitCode: number | undefined) => {
    if (current === undefined) return;
    const a = current.announced;
    checks.push({
      name: current.name,
      ...(exitCode === undefined ? {} : { exitCode }),
      skipped: current.skipped,
      tail: tail(current.output.join('\n')),
      ...(a?.command === undefined ? {} : { command: a.command.slice(0, 1_000) }),
      ...(a?.source === undefined ? {} : { source: a.source.slice(0, 200) }),
      ...(a?.refused === undefined ? {} : { refused: a.refused.slice(0, 1_000) }),
    });
    current = undefined;
  };
  for (const raw of lines) {
    const line = raw.replace(/\n$/, '');
    if (line.startsWith(CHECK_BEGIN)) {
      close(undefined);
      current = { name: line.slice(CHECK_BEGIN.length).trim(), output: [], skipped: false };
    } else if (line.startsWith(CHECK_END) && current !== undefined) {
      const code = Number(line.slice(line.lastIndexOf('::') + 2));
      close(Number.isInteger(code) ? code : undefined);
    } else if (current !== undefined) {
      if (line.startsWith(CHECK_SKIPPED)) current.skipped = true;
      else if (line.startsWith(CHECK_COMMAND) && current.announced === undefined)
        current.announced = announcement(line.slice(CHECK_COMMAND.length));
      else if (!line.startsWith('[Container]')) current.output.push(line);
    }
  }
  close(undefined);
  return checks;
}

function checkLine(check: CheckResult): string {
  if (check.skipped)
    return `• ${check.name}: skipped (${check.tail.trim() || 'not configured, no such script'})`;
  if (check.refused !== undefined) return `• ${check.name}: failed, not run: ${check.refused}`;
  const ran =
    check.command === undefined ? '' : ` — \`${check.command}\`${check.source ? ` ${check.source}` : ''}`;
  if (check.exitCode === undefined) return `• ${check.name}: did not finish${ran}`;
  return `• ${check.name}: ${check.exitCode === 0 ? 'passed' : `failed (exit ${check.exitCode})`}${ran}`;
}

/** The results of one build attempt, with what the fixer is told when it failed. */
export function buildResults(input: {
  attempt: number;
  status: string;
  buildId?: string | undefined;
  checks: readonly CheckResult[];
  /** Why the build failed when no check says so (it could not start, its source failed). */
  problem?: string | undefined;
}): BuildResults {
  const failing = input.checks.filter((c) => !c.skipped && c.exitCode !== 0);
  const passed = input.status === 'SUCCEEDED' && failing.length === 0;
  const lines = input.checks.map(checkLine);
  if (input.problem !== undefined) lines.push(`• build: ${tail(input.problem, 300)}`);
  if (lines.length === 0) lines.push(`• build: ${input.status}`);
  const summary = tail(
    `Build ${input.status.toLowerCase()} (attempt ${input.attempt}):\n${lines.join('\n')}`,
    2_000,
  );
  const feedback = passed
    ? []
    : [
        `Build attempt ${input.attempt} of your fix failed (${input.status}). Fix what the output shows, on the same branch, then submit again.`,
        ...failing.map(
          (c) =>
            `Check "${c.name}" ${c.exitCode === undefined ? 'did not finish' : `exited ${c.exitCode}`}. The end of its output:\n${c.tail}`,
        ),
        ...(input.problem === undefined ? [] : [`The build itself: ${tail(input.problem, 2_000)}`]),
      ];
  return {
    attempt: input.attempt,
    passed,
    status: input.status,
    ...(input.buildId === undefined ? {} : { buildId: input.buildId }),
    checks: [...input.checks],
    summary,
    feedback,
  };
}
