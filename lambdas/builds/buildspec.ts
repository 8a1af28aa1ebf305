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
