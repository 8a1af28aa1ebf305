import type { BuildSettings } from './contract.ts';

/**
 * The buildspec of the checks build: each check is ONE command line that cannot fail and
 * prints delimited markers around the check's output, and a last command fails the build
 * when any check failed (local/codebuild/README.md, "Per-command exit codes"). So every check
 * runs whatever the earlier ones did, and `parseChecks` (build-results.ts) finds each exit code
 * and output in the build's log.
 */

export const CHECK_NAMES = ['install', 'test', 'lint', 'typecheck'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export const CHECK_BEGIN = '::check-begin::';
export const CHECK_END = '::check-end::';
export const CHECK_SKIPPED = '::check-skipped::';

/**
 * A check without a configured command is detected from the repository's `package.json` at
 * build time (the build has the checkout; the synthesized project does not).
 */
function detected(name: CheckName): string {
  if (name === 'install') {
    return `if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; elif [ -f package.json ]; then npm install --no-audit --no-fund; else echo "${CHECK_SKIPPED}install"; fi`;
  }
  const hasScript = `node -e "process.exit(require('./package.json').scripts?.['${name}'] ? 0 : 1)" 2>/dev/null`;
  return `if [ -f package.json ] && ${hasScript}; then npm run --silent ${name}; else echo "${CHECK_SKIPPED}${name}"; fi`;
}

/** One check as a command line that records its exit code and never fails itself. */
export function checkLine(name: CheckName, command: string): string {
  // The subshell keeps an `exit` in the command from ending the line before its end marker.
  return `echo "${CHECK_BEGIN}${name}"; ( ${command} ) 2>&1; code=$?; echo "${CHECK_END}${name}::$code"; [ $code -eq 0 ] || failed=1`;
}

/** The checks build's buildspec (version 0.2) for the configured commands. */
export function checksBuildspec(build: BuildSettings): Record<string, unknown> {
  const commands: Partial<Record<CheckName, string | undefined>> = build.commands;
  return {
    version: '0.2',
    phases: {
      build: {
        commands: [
          'failed=0',
          ...CHECK_NAMES.map((name) => checkLine(name, commands[name] ?? detected(name))),
          '[ "$failed" != 1 ]',
        ],
      },
    },
  };
}

/** The line a defined check prints first: its command and where it came from, as JSON. */
export const CHECK_COMMAND = '::check-command::';

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** What a defined check says about itself: the command and its origin, or why it did not run. */
export interface CheckAnnouncement {
  command?: string;
  /** For people: "from the configuration", "from the base commit abc1234". */
  source?: string;
  refused?: string;
}

/**
 * One defined check as a command line: it announces its command and origin, then runs it; a
 * refused check prints why and fails; a skipped one says why it did not run.
 */
export function definedCheckLine(name: CheckName, check: CheckAnnouncement & { skipped?: string }): string {
  const announce = `echo ${shellQuote(`${CHECK_COMMAND}${JSON.stringify({ command: check.command, source: check.source, refused: check.refused })}`)}`;
  if (check.refused !== undefined)
    return checkLine(name, `${announce}; echo ${shellQuote(`Refused: ${check.refused}`)}; exit 1`);
  if (check.command === undefined)
    return `echo "${CHECK_BEGIN}${name}"; echo "${CHECK_SKIPPED}${name}"; echo ${shellQuote(check.skipped ?? 'not defined')}; echo "${CHECK_END}${name}::0"`;
  return checkLine(name, `${announce}; ${check.command}`);
}

/** The buildspec (version 0.2) running exactly the defined checks, in order. */
export function definedChecksBuildspec(
  checks: readonly (CheckAnnouncement & { name: CheckName; skipped?: string })[],
): Record<string, unknown> {
  return {
    version: '0.2',
    phases: {
      build: {
        commands: ['failed=0', ...checks.map((c) => definedCheckLine(c.name, c)), '[ "$failed" != 1 ]'],
      },
    },
  };
}
