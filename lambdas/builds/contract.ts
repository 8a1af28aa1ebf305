import * as z from 'zod';

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

/** One check of a build: its exit code (absent when it never finished) and its output's tail. */
export const CheckResult = z.object({
  name: z.string(),
  /** Absent: the check started but never ended (the build timed out or was stopped). */
  exitCode: z.number().int().optional(),
  /** The command was not configured and the repository has no such script. */
  skipped: z.boolean(),
  tail: z.string(),
  /** The command that ran (a build whose checks were defined before it: check-definitions.ts). */
  command: z.string().max(1_000).optional(),
  /** Where the command came from, for people: "from the configuration", "from the base commit abc1234". */
  source: z.string().max(200).optional(),
  /** Why the check failed without running: the branch broke the base's definition of it. */
  refused: z.string().max(1_000).optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;

/** Output of "Read build results". */
export const BuildResults = z.object({
  attempt: z.number().int().positive(),
  passed: z.boolean(),
  /** CodeBuild's status (SUCCEEDED, FAILED, TIMED_OUT, STOPPED), or NOT_STARTED. */
  status: z.string(),
  buildId: z.string().optional(),
  checks: z.array(CheckResult),
  /** One line per check, for Slack and the pull request. */
  summary: z.string().max(2_000),
  /** What the writer's next attempt is told: the failing checks' output. */
  feedback: z.array(z.string().max(8_000)),
});
export type BuildResults = z.infer<typeof BuildResults>;

/** Input of "Read build results": the Task's output, or what its Catch recorded. */
export const ReadBuildResultsInput = z.object({
  conversationId: z.string().min(1),
  attempt: z.number().int().positive(),
  /** `{ Build }` of a build that succeeded; `{}` when it did not. */
  output: z.object({ Build: z.record(z.string(), z.unknown()).optional() }).optional(),
  /** `{ Error, Cause }` of a build that failed, timed out or could not start; `{}` when it succeeded. */
  failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});
export type ReadBuildResultsInput = z.infer<typeof ReadBuildResultsInput>;
