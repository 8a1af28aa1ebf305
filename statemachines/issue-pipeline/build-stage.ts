import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { IssuePipelineSettings } from '../../lambdas/workflows/issue-pipeline/config.ts';
import { ChecksBuildProject, checksBuilds } from '../checks-build.ts';
import { catchFailure } from '../kernel.ts';
import type { KernelResources } from '../workflow-module.ts';
import type { IssueFunctionId } from './functions.ts';
import { ISSUE_STATE } from './issue-state.ts';
import { HAND_OFF, ISSUE_PIPELINE_STATES } from './states.ts';
import type { IssueTask } from './tasks.ts';

type Kernel = KernelResources<IssueFunctionId, IssuePipelineSettings>;

/** The Build stage: the work branch's checks, judged (code); the base commit's when it is needed. */
export function buildStage(
  scope: Construct,
  kernel: Kernel,
  task: IssueTask,
  showProgress: sfn.IChainable,
  failed: sfn.IChainable,
): { build: sfn.IChainable; base: sfn.IChainable } {
  const S = ISSUE_PIPELINE_STATES;
  const { settings } = kernel;
  const project = (id: string, builds: 'branch' | 'base') =>
    new ChecksBuildProject(scope, id, {
      repository: settings.repository ?? '',
      githubBaseUrl: kernel.config.github.baseUrl,
      build: settings.build,
      builds,
    }).project;
  // The base commit builds in a project of its own: the branch's builds run as a role that
  // cannot write the base's test reports, which excuse the branch's failures (build-judge.ts).
  const checks = project('ChecksBuild', 'branch');
  const baseChecks = project('BaseChecksBuild', 'base');
  const run = (name: string, judge: sfn.IChainable, checksProject: typeof checks) => {
    // A failed, timed-out or refused build is an outcome to judge, not the end of the pipeline.
    const builds = checksBuilds(scope, {
      stateName: name,
      project: checksProject,
      build: settings.build,
      itemsPath: ISSUE_STATE.at('build.checks.builds'),
      resultPath: ISSUE_STATE.at('build.builds'),
    });
    catchFailure(builds, failed);
    builds.next(judge);
    return builds;
  };
  const judge = (name: string, kind: 'branch' | 'base') => {
    const judged = task(
      name,
      'IssueJudgeBuild',
      {
        attempt: sfn.JsonPath.numberAt(HAND_OFF.at('attempt')),
        kind,
        baseSha: sfn.JsonPath.stringAt(ISSUE_STATE.at('pipeline.baseSha')),
        // The commit every checks build of this stage built (a sha "Define checks" read, never a
        // branch): the verdict is about it, and the pipeline goes on only while the branch is there.
        headSha: sfn.JsonPath.stringAt(ISSUE_STATE.at('build.checks.headSha')),
        checks: sfn.JsonPath.listAt(ISSUE_STATE.at('build.checks.checks')),
        builds: sfn.JsonPath.listAt(ISSUE_STATE.at('build.builds')),
      },
      HAND_OFF.path,
    );
    catchFailure(judged, failed);
    judged.next(showProgress);
    return judged;
  };
  // Each build starts afresh: nothing of an earlier attempt's checks or builds is read.
  const prepare = (name: string) =>
    sfn.Pass.jsonPath(scope, name, {
      result: sfn.Result.fromObject({}),
      resultPath: ISSUE_STATE.at('build'),
    });
  // Each build's commands come from the configuration or the base commit, never from the branch
  // under test; the base build is defined by the base itself (so nothing it lacks is refused).
  const define = (name: string, head: string) => {
    const defined = task(
      name,
      'IssueDefineChecks',
      {
        branch: sfn.JsonPath.stringAt(head),
        base: sfn.JsonPath.stringAt(ISSUE_STATE.at('pipeline.baseSha')),
        commands: settings.build.commands,
      },
      ISSUE_STATE.at('build.checks'),
    );
    catchFailure(defined, failed);
    return defined;
  };
  const build = prepare(S.prepareBuild)
    .next(define(S.defineChecks, ISSUE_STATE.at('pipeline.branch')))
    .next(run(S.build, judge(S.judgeBuild, 'branch'), checks));
  const base = prepare(S.prepareBaseBuild)
    .next(define(S.defineBaseChecks, ISSUE_STATE.at('pipeline.baseSha')))
    .next(run(S.buildBase, judge(S.judgeBaseBuild, 'base'), baseChecks));
  return { build, base };
}
