import * as z from 'zod';
import { CheckDefinition } from './check-definitions.ts';

/**
 * The checks build's contracts with the state machines that run it (a workflow's
 * `codebuild:startBuild.sync` Task, then a Lambda reading its results): its settings, one
 * check's result, the condensed results, and the reader's input. Shared by every workflow that
 * builds an agent's work branch (the bug workflow's fix path, the issue pipeline).
 */

/** Configured shell commands per check (a check without one is defined by the base commit). */
export const CheckCommands = z.strictObject({
  install: z.string().min(1).optional(),
  test: z.string().min(1).optional(),
  lint: z.string().min(1).optional(),
  typecheck: z.string().min(1).optional(),
});
export type CheckCommands = z.infer<typeof CheckCommands>;

/** The checks a change must pass: the CodeBuild project's commands and limits. */
export const BuildSettings = z
  .strictObject({
    /**
     * Shell commands per check; a check without one is defined by the BASE commit's
     * `package.json` (`npm ci`/`npm install`, and the `test`, `lint`, `typecheck` scripts),
     * never by the branch under test (check-definitions.ts, docs/security-code-changes.md).
     */
    commands: CheckCommands.prefault({}),
    /** A build stopped past this (CodeBuild allows 5 to 2160). @default 20 */
    timeoutMinutes: z.number().int().min(5).max(120).default(20),
  })
  .prefault({});
export type BuildSettings = z.infer<typeof BuildSettings>;

/** Failed test names kept per check at most, and characters of each. */
export const MAX_FAILED_TESTS = 50;
export const MAX_TEST_NAME_CHARS = 200;

/**
 * The per-test results of a check whose runner writes JUnit XML, read through CodeBuild's
 * report API (never from the log): `read` with the failed tests (`complete` when all of them
 * are listed, and every test case of the reports was read), or `missing` when the build has no
 * usable report (the runner wrote none, or nothing parsed). Absent: the check's runner writes
 * no report, and it is judged whole.
 */
export const TestReport = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('read'),
    total: z.number().int().nonnegative(),
    failed: z.array(z.string().max(MAX_TEST_NAME_CHARS)).max(MAX_FAILED_TESTS),
    complete: z.boolean(),
    /**
     * The failed tests whose name another test case of the reports carries too: a runner that
     * names no file (Node's JUnit reporter), two tests named alike in one file, or a name cut
     * at its length limit. Such a failure cannot be told apart from its namesakes, so it is
     * never matched to the base's (absent in results read before this was kept: none known).
     */
    shared: z.array(z.string().max(MAX_TEST_NAME_CHARS)).max(MAX_FAILED_TESTS).optional(),
  }),
  z.object({ status: z.literal('missing'), reason: z.string().max(300) }),
]);
export type TestReport = z.infer<typeof TestReport>;

/**
 * One check's result: its exit code (absent when it never finished) and its output's tail. The
 * code comes from the status CodeBuild reports for the check's own build and phase (0 only when
 * both SUCCEEDED), the command and origin from "Define checks"; only the tail is from the log.
 */
export const CheckResult = z.object({
  name: z.string(),
  /** Absent: the check did not run to its end (its build failed first, timed out, was stopped or killed). */
  exitCode: z.number().int().optional(),
  /** The status of the check's build, as CodeBuild reports it (absent: the check had no build). */
  buildStatus: z.string().optional(),
  /** The command was not configured and the repository has no such script. */
  skipped: z.boolean(),
  tail: z.string(),
  /** The command that ran (a build whose checks were defined before it: check-definitions.ts). */
  command: z.string().max(1_000).optional(),
  /** Where the command came from, for people: "from the configuration", "from the base commit abc1234". */
  source: z.string().max(200).optional(),
  /** Why the check failed without running: the branch broke the base's definition of it. */
  refused: z.string().max(1_000).optional(),
  /** Per-test results, where the check's runner writes a JUnit report. */
  tests: TestReport.optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;

/** Output of "Read build results". */
export const BuildResults = z.object({
  attempt: z.number().int().positive(),
  passed: z.boolean(),
  /** The builds' status: SUCCEEDED when every one did, else the worst (FAULT, TIMED_OUT, STOPPED, FAILED, NOT_STARTED); NO_CHECKS when none ran. */
  status: z.string(),
  buildId: z.string().optional(),
  /** Every checks build of the attempt. */
  buildIds: z.array(z.string()).optional(),
  checks: z.array(CheckResult),
  /** One line per check, for Slack and the pull request. */
  summary: z.string().max(2_000),
  /** What the writer's next attempt is told: the failing checks' output. */
  feedback: z.array(z.string().max(8_000)),
  /**
   * The commit the checks built: "Define checks"' `headSha`, every checks build's source
   * version. Set where the caller keeps it with the verdict (the issue pipeline's judge).
   */
  headSha: z.string().optional(),
});
export type BuildResults = z.infer<typeof BuildResults>;

/** One checks build as the state machine ran it: the Task's output, or what its Catch recorded. */
export const ChecksBuildOutcome = z.object({
  /** The check the build ran (`install`: the install alone). */
  check: z.string(),
  /** `{ Build }` of a build that succeeded; absent or `{}` when it did not. */
  output: z.object({ Build: z.record(z.string(), z.unknown()).optional() }).optional(),
  /** `{ Error, Cause }` of a build that failed, timed out or could not start. */
  failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});
export type ChecksBuildOutcome = z.infer<typeof ChecksBuildOutcome>;

/** Input of "Read build results": the checks as "Define checks" defined them, and their builds. */
export const ReadBuildResultsInput = z.object({
  conversationId: z.string().min(1),
  attempt: z.number().int().positive(),
  checks: z.array(CheckDefinition),
  builds: z.array(ChecksBuildOutcome),
});
export type ReadBuildResultsInput = z.infer<typeof ReadBuildResultsInput>;
