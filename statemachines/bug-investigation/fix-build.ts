import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { BugInvestigationSettings } from '../../lambdas/workflows/bug-investigation/config.ts';
import type { handler as ReadBuildResults } from '../../lambdas/workflows/bug-investigation/handlers/read-build-results.ts';
import { ChecksBuildProject, checksBuilds } from '../checks-build.ts';
import { catchFailure, FAILURE } from '../kernel.ts';
import { lambdaTask, type TaskInputOf } from '../lambda-task.ts';
import { BUG_STATE, FIX } from './bug-state.ts';
import { defineChecksState } from './fix-guards.ts';

/** The fix path's build round: define the checks, build the fix branch with them, read the results, then decide. */

/** State names, as they read in the execution graph (part of the fix path's, fix-path.ts). */
export const FIX_BUILD_STATES = {
  prepareBuild: 'Prepare build',
  buildFix: 'Build fix',
  readBuildResults: 'Read build results',
  noteUnreadBuild: 'Note unread build',
  buildPassed: 'Build passed?',
  feedBackBuild: 'Feed build output back',
} as const;

export interface FixBuildProps {
  readonly repository: string;
  readonly githubBaseUrl: string;
  readonly settings: BugInvestigationSettings;
  /** "Define checks" before each build (fix-guards.ts). */
  readonly defineChecksFn: IFunction;
  readonly readBuildResultsFn: IFunction;
  /** Where the state holds the work branch the build checks out. */
  readonly branchPath: string;
  /** Where a green build goes on. */
  readonly passed: sfn.IChainable;
  /** The fixer's next turn, told the failed build's feedback, while attempts are left. */
  readonly again: sfn.IChainable;
  /** Where a build that cannot run or be read, or the last failed attempt, goes: the reason told. */
  readonly explain: sfn.IChainable;
}

/** Builds the build round; returns its first state ("Prepare build"). */
export function fixBuildStates(scope: Construct, props: FixBuildProps): sfn.Pass {
  const S = FIX_BUILD_STATES;
  const conversationId = sfn.JsonPath.stringAt(BUG_STATE.at('conversationId'));
  const checks = new ChecksBuildProject(scope, 'ChecksBuild', {
    repository: props.repository,
    githubBaseUrl: props.githubBaseUrl,
    build: props.settings.build,
  });
  // Each attempt starts afresh: the counter moves on; the last attempt's checks and builds are dropped.
  const prepareBuild = sfn.Pass.jsonPath(scope, S.prepareBuild, {
    parameters: {
      attempt: sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt(FIX.at('attempt')), 1),
      notes: sfn.JsonPath.listAt(FIX.at('notes')),
      turn: sfn.JsonPath.objectAt(FIX.at('turn')),
      build: sfn.JsonPath.objectAt(FIX.at('build')),
      pullRequest: sfn.JsonPath.objectAt(FIX.at('pullRequest')),
    },
    resultPath: FIX.path,
  });
  const defineChecks = defineChecksState(scope, {
    fn: props.defineChecksFn,
    branchPath: props.branchPath,
    build: props.settings.build,
    explain: props.explain,
  });
  const buildFix = checksBuilds(scope, {
    stateName: S.buildFix,
    project: checks.project,
    build: props.settings.build,
    itemsPath: FIX.at('checks.builds'),
    resultPath: FIX.at('builds'),
  });
  const readBuildResults = lambdaTask<TaskInputOf<typeof ReadBuildResults>>(
    scope,
    S.readBuildResults,
    props.readBuildResultsFn,
    {
      conversationId,
      attempt: sfn.JsonPath.numberAt(FIX.at('attempt')),
      checks: sfn.JsonPath.listAt(FIX.at('checks.checks')),
      builds: sfn.JsonPath.listAt(FIX.at('builds')),
    },
    FIX.at('build'),
  );
  const noteUnreadBuild = sfn.Pass.jsonPath(scope, S.noteUnreadBuild, {
    parameters: {
      attempt: sfn.JsonPath.numberAt(FIX.at('attempt')),
      passed: false,
      status: 'UNKNOWN',
      checks: [],
      summary: sfn.JsonPath.format(
        'The build results could not be read: {}',
        sfn.JsonPath.stringAt(FAILURE.at('Error')),
      ),
      feedback: [],
    },
    resultPath: FIX.at('build'),
  }).next(props.explain);
  catchFailure(buildFix, noteUnreadBuild);
  catchFailure(readBuildResults, noteUnreadBuild);

  const feedBack = sfn.Pass.jsonPath(scope, S.feedBackBuild, {
    // A Pass without parameters passes its (input-path) input on: the feedback becomes the notes.
    inputPath: FIX.at('build.feedback'),
    resultPath: FIX.at('notes'),
  }).next(props.again);
  const buildPassed = sfn.Choice.jsonPath(scope, S.buildPassed)
    .when(sfn.Condition.booleanEquals(FIX.at('build.passed'), true), props.passed)
    .when(sfn.Condition.numberLessThan(FIX.at('attempt'), props.settings.maxFixAttempts), feedBack)
    .otherwise(props.explain);
  prepareBuild.next(defineChecks).next(buildFix).next(readBuildResults).next(buildPassed);
  return prepareBuild;
}
