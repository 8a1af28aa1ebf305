import * as z from 'zod';
import { CodeBuildApiError } from '../codebuild/errors.ts';
import { StartBuildInput } from '../codebuild/model.ts';
import type { CodeBuildService } from '../codebuild/service.ts';
import type { FailureInfo } from './integrations.ts';
import type { TaskRun } from './task-run.ts';

/**
 * `arn:aws:states:::codebuild:startBuild` and `...:startBuild.sync` as Step Functions runs
 * them: the Task's Parameters are StartBuild's request in PascalCase; the result is
 * `{ "Build": { ... } }` with PascalCase fields and timestamps as epoch milliseconds (what
 * `$.Build.BuildStatus` and `$.Build..Arn` select in a deployed state machine). `.sync` waits
 * for the build: SUCCEEDED gives the finished build; any other end fails the Task with
 * `States.TaskFailed` and the build as the Cause. A StartBuild the service refuses fails with
 * `CodeBuild.<exception>` (e.g. `CodeBuild.ResourceNotFoundException`).
 */

/** What the integration needs of the sandbox's CodeBuild. */
export type CodeBuildPort = Pick<CodeBuildService, 'startBuild' | 'waitForBuild' | 'stopBuild'>;

/**
 * Runs one StartBuild Task. With `sync`, records TaskSubmitted with the started build, then
 * settles `run` when the build completes; a build still running when the Task ends otherwise
 * (its timeout, the execution stopped) is stopped, as Step Functions stops a `.sync` job.
 */
export function runStartBuild(
  codebuild: CodeBuildPort,
  parameters: Record<string, unknown>,
  sync: boolean,
  run: TaskRun,
  submitted: (output: unknown) => void,
): void {
  let build: ReturnType<CodeBuildPort['startBuild']>;
  try {
    build = codebuild.startBuild(startBuildInput(parameters));
  } catch (error) {
    const { error: name, cause } = codeBuildFailure(error);
    run.fail(name, cause);
    return;
  }
  const started = { Build: toStepFunctions(build) };
  if (!sync) {
    run.succeed(started);
    return;
  }
  submitted(started);
  const id = build.id;
  run.result.then(
    () => undefined,
    () => {
      // The Task ended before the build did (timeout, execution stopped): stop the build.
      codebuild.stopBuild(id);
    },
  );
  codebuild.waitForBuild(id).then(
    (finished) => {
      if (!run.pending) return;
      const output = { Build: toStepFunctions(finished) };
      if (finished.buildStatus === 'SUCCEEDED') run.succeed(output);
      else run.fail('States.TaskFailed', JSON.stringify(output));
    },
    (error: unknown) => {
      const { error: name, cause } = codeBuildFailure(error);
      run.fail(name, cause);
    },
  );
}

/** The Task's PascalCase Parameters as StartBuild's camelCase request, validated. */
export function startBuildInput(parameters: Record<string, unknown>): StartBuildInput {
  const parsed = StartBuildInput.safeParse(camelCase(parameters));
  if (!parsed.success) {
    throw new CodeBuildApiError('InvalidInputException', z.prettifyError(parsed.error));
  }
  return parsed.data;
}

export function codeBuildFailure(error: unknown): FailureInfo {
  if (error instanceof CodeBuildApiError) {
    return {
      error: `CodeBuild.${error.code}`,
      cause: `${error.message} (Service: AWSCodeBuild; Status Code: 400; Error Code: ${error.code})`,
    };
  }
  return { error: 'States.TaskFailed', cause: error instanceof Error ? error.message : String(error) };
}

/** A value with every key in PascalCase and every date as epoch milliseconds. */
export function toStepFunctions(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) return value.map(toStepFunctions);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key.charAt(0).toUpperCase() + key.slice(1),
        toStepFunctions(inner),
      ]),
    );
  }
  return value;
}

function camelCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCase);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key.charAt(0).toLowerCase() + key.slice(1),
        camelCase(inner),
      ]),
    );
  }
  return value;
}
