import { junitReports } from './junit-report.ts';

/**
 * The buildspecs of the checks builds. Each check that runs (typecheck, lint, test) gets a
 * build of its own, in a fresh checkout of the defined commit: the INSTALL phase installs the
 * dependencies as the base commit defines, the BUILD phase runs the one check. So a check's
 * verdict is its build's status and its phases' statuses, which CodeBuild reports
 * (`BatchGetBuilds`: `buildStatus`, `phases[].phaseStatus`) and the code under test cannot
 * write, and nothing a check does (files, `package.json`, processes, environment) reaches
 * another check: there is no next command in its build, and no shared copy between builds.
 * Nothing printed in a build's log decides anything (docs/security-code-changes.md).
 */

/** The checks, in the order they are reported. */
export const CHECK_NAMES = ['install', 'typecheck', 'lint', 'test'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** The checks that run in a build of their own (the install runs first in each of them). */
export const BUILT_CHECKS = ['typecheck', 'lint', 'test'] as const;
export type BuiltCheck = (typeof BUILT_CHECKS)[number];

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The checkout's `node_modules/.bin` first on PATH, as `npm run` puts it. */
export const LOCAL_BIN_FIRST = 'export PATH="$CODEBUILD_SRC_DIR/node_modules/.bin:$PATH"';

/** What a build needs to know of the install: its command, or why it does not run. */
export interface InstallStep {
  command?: string | undefined;
  refused?: string | undefined;
  skipped?: string | undefined;
}

/** The INSTALL phase's one command: the install, a refusal that fails, or a note that it is skipped. */
function installCommand(install: InstallStep): string {
  if (install.refused !== undefined) return `echo ${shellQuote(`Refused: ${install.refused}`)}; exit 1`;
  if (install.command === undefined)
    return `echo ${shellQuote(`install: skipped (${install.skipped ?? 'not defined'})`)}`;
  return install.command;
}

/**
 * One check's buildspec (version 0.2): the install (ABORT on failure: a check on a tree whose
 * dependencies did not install is not run), then the check's command as the BUILD phase's only
 * command. Without a check, the build runs the install alone (its own verdict when no check runs).
 */
export function checkBuildspec(
  install: InstallStep,
  command?: string,
  options: { junitReport?: boolean | undefined } = {},
): Record<string, unknown> {
  return {
    version: '0.2',
    phases: {
      install: { commands: [installCommand(install)] },
      // The check is the build's last command: nothing it leaves behind is run after it.
      ...(command === undefined ? {} : { build: { commands: [LOCAL_BIN_FIRST, command] } }),
    },
    // The test runner's per-test results, kept by CodeBuild as a report (junit-report.ts).
    ...(command !== undefined && options.junitReport === true ? { reports: junitReports() } : {}),
  };
}

/**
 * The checks project's own buildspec: it runs nothing. Every start passes the buildspec
 * "Define checks" wrote (`BuildspecOverride`); a start without one fails, saying so.
 */
export function refusingBuildspec(): Record<string, unknown> {
  return {
    version: '0.2',
    phases: {
      build: {
        commands: [
          'echo "This project runs only the checks Define checks wrote (BuildspecOverride); none was given."; exit 1',
        ],
      },
    },
  };
}
