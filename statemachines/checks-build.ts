import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as codebuild from 'aws-cdk-lib/aws-codebuild';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { refusingBuildspec } from '../lambdas/builds/buildspec.ts';
import type { BuildSettings } from '../lambdas/builds/contract.ts';
import { CODEBUILD_TRANSIENT_ERRORS } from './error-names.ts';
import type { CaughtError } from './kernel-state.ts';
import { stateOf } from './result-paths.ts';

/** The handler of "Define checks" (lambdas/builds/define-checks.ts), shared by every module that builds. */
export const DEFINE_CHECKS_ENTRY = 'lambdas/handlers/define-checks.ts';

/** github.com's REST API: a repository there is a GITHUB source, anywhere else GITHUB_ENTERPRISE. */
const GITHUB_COM_API = 'https://api.github.com';

export interface ChecksBuildProjectProps {
  /** `owner/name`. */
  readonly repository: string;
  /** The REST API base URL (`github.baseUrl`): `https://api.github.com` or `https://HOST/api/v3`. */
  readonly githubBaseUrl: string;
  readonly build: BuildSettings;
  /**
   * What it builds: an agent's work branch, or the base commit the branch is judged against.
   * The base gets a project of its own, so its own role: a build of the branch under test holds
   * the credentials of its project's role, which may write that project's test reports and
   * logs, never the base's.
   * @default 'branch'
   */
  readonly builds?: 'branch' | 'base';
}

/** The clone URL of `repository` on the GitHub that `githubBaseUrl` serves. */
export function cloneUrl(githubBaseUrl: string, repository: string): string {
  const base = githubBaseUrl.replace(/\/+$/, '');
  if (base === GITHUB_COM_API) return `https://github.com/${repository}.git`;
  return `${base.replace(/\/api\/v3$/, '')}/${repository}.git`;
}

/**
 * The CodeBuild project that runs a repository's checks (install, test, lint, typecheck) on
 * a work branch. Its source is the repository itself, checked out by CodeBuild with the
 * GitHub credentials CodeBuild holds for the account (imported once at deploy, README): the
 * build's environment gets no secret and no token, so the code under test, which an agent
 * wrote, cannot read one. Each start names the branch (`SourceVersion`).
 */
export class ChecksBuildProject extends Construct {
  readonly project: codebuild.Project;

  constructor(scope: Construct, id: string, props: ChecksBuildProjectProps) {
    super(scope, id);
    const [owner, repo] = props.repository.split('/') as [string, string];
    const source =
      props.githubBaseUrl.replace(/\/+$/, '') === GITHUB_COM_API
        ? codebuild.Source.gitHub({ owner, repo, reportBuildStatus: false })
        : codebuild.Source.gitHubEnterprise({
            httpsCloneUrl: cloneUrl(props.githubBaseUrl, props.repository),
            reportBuildStatus: false,
          });
    this.project = new codebuild.Project(this, 'Project', {
      description:
        props.builds === 'base'
          ? `Checks of ${props.repository} on the base commit an agent's work branch is judged against`
          : `Checks of ${props.repository} on an agent's work branch`,
      source,
      // Every start brings the buildspec "Define checks" wrote; the project's own runs nothing.
      buildSpec: codebuild.BuildSpec.fromObject(refusingBuildspec()),
      environment: {
        buildImage: codebuild.LinuxBuildImage.STANDARD_7_0,
        computeType: codebuild.ComputeType.SMALL,
      },
      timeout: Duration.minutes(props.build.timeoutMinutes),
    });
    const stack = Stack.of(this);
    const projectRef = stack.getLogicalId(this.project.node.defaultChild as codebuild.CfnProject);
    Validations.of(this.project).acknowledge({
      id: 'AwsSolutions-CB4',
      reason:
        'The checks build produces no artifacts and holds no secret: only its log, which CodeBuild encrypts with the AWS managed key.',
    });
    if (this.project.role !== undefined) {
      Validations.of(this.project.role).acknowledge(
        {
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/codebuild/<${projectRef}>:*]`,
          reason: "CodeBuild's own grant: the streams of this project's log group, created per build.",
        },
        {
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codebuild:<AWS::Region>:<AWS::AccountId>:report-group/<${projectRef}>-*]`,
          reason: "CodeBuild's own grant: this project's test report groups.",
        },
      );
    }
  }
}

/**
 * `codebuild:startBuild.sync` with the branch to build: CDK's task renders the project and
 * its IAM (StartBuild, StopBuild, BatchGetBuilds, the managed EventBridge rule); this adds
 * `SourceVersion`, which CDK's task does not offer, and `BuildspecOverride`: the checks
 * "Define checks" decided from the configuration and the base commit, so the build never runs
 * what the branch under test defines.
 */
export class StartChecksBuild extends tasks.CodeBuildStartBuild {
  private readonly sourceVersionPath: string;
  private readonly buildspecPath: string | undefined;

  constructor(
    scope: Construct,
    id: string,
    props: tasks.CodeBuildStartBuildProps & { sourceVersionPath: string; buildspecPath?: string },
  ) {
    const { sourceVersionPath, buildspecPath, ...rest } = props;
    super(scope, id, rest);
    this.sourceVersionPath = sourceVersionPath;
    this.buildspecPath = buildspecPath;
  }

  override toStateJson(queryLanguage?: sfn.QueryLanguage): object {
    const state = super.toStateJson(queryLanguage) as { Parameters?: Record<string, unknown> };
    state.Parameters = {
      ...state.Parameters,
      'SourceVersion.$': this.sourceVersionPath,
      ...(this.buildspecPath === undefined ? {} : { 'BuildspecOverride.$': this.buildspecPath }),
    };
    return state;
  }
}

/** Build Task timeout: the project's own timeout plus time to queue and provision. */
export function checksBuildTaskTimeout(build: BuildSettings): Duration {
  return Duration.minutes(build.timeoutMinutes + 10);
}

/** The Retry of a checks build that CodeBuild could not take now (account limits, its own errors, the network). */
export function checksBuildRetry(): sfn.RetryProps {
  return {
    errors: [...CODEBUILD_TRANSIENT_ERRORS, 'States.Http.Socket'],
    interval: Duration.seconds(30),
    maxAttempts: 3,
    backoffRate: 2,
  };
}

export interface ChecksBuildsProps {
  /** The Map's name; its iteration's states are named after it. */
  readonly stateName: string;
  readonly project: codebuild.IProject;
  readonly build: BuildSettings;
  /** Where "Define checks" put its `builds` (each `{ check, sourceVersion, buildspec }`). */
  readonly itemsPath: string;
  /** Where the builds' outcomes go: each `{ check, output: { Build } }` or `{ check, failure }`. */
  readonly resultPath: string;
}

/** The state of one check's iteration: the Map's item, then the build's outcome. */
interface CheckBuildState {
  readonly check: string;
  readonly sourceVersion: string;
  readonly buildspec: string;
  /** The `startBuild.sync` output (`{ Build }`), or the Catch's error. */
  readonly output?: unknown;
  readonly failure?: CaughtError;
}
const CHECK_BUILD = stateOf<CheckBuildState>();

/**
 * The checks builds of one attempt, side by side: one `codebuild:startBuild.sync` per check
 * "Define checks" asked for, each building the defined commit with its own buildspec. A build
 * that fails, times out or cannot start is an outcome to read (its Catch keeps `{ Error, Cause }`),
 * not the end of the workflow; its status is what CodeBuild reports, never what the build prints.
 */
export function checksBuilds(scope: Construct, props: ChecksBuildsProps): sfn.Map {
  const build = new StartChecksBuild(scope, `${props.stateName}: one check`, {
    stateName: `${props.stateName}: one check`,
    project: props.project,
    integrationPattern: sfn.IntegrationPattern.RUN_JOB,
    sourceVersionPath: CHECK_BUILD.at('sourceVersion'),
    buildspecPath: CHECK_BUILD.at('buildspec'),
    resultPath: CHECK_BUILD.at('output'),
    taskTimeout: sfn.Timeout.duration(checksBuildTaskTimeout(props.build)),
  });
  build.addRetry(checksBuildRetry());
  const failed = sfn.Pass.jsonPath(scope, `${props.stateName}: check build failed`);
  build.addCatch(failed, { errors: [sfn.Errors.ALL], resultPath: CHECK_BUILD.at('failure') });
  const map = sfn.Map.jsonPath(scope, props.stateName, {
    stateName: props.stateName,
    itemsPath: props.itemsPath,
    itemSelector: {
      check: sfn.JsonPath.stringAt('$$.Map.Item.Value.check'),
      sourceVersion: sfn.JsonPath.stringAt('$$.Map.Item.Value.sourceVersion'),
      buildspec: sfn.JsonPath.stringAt('$$.Map.Item.Value.buildspec'),
    },
    resultPath: props.resultPath,
  });
  map.itemProcessor(build);
  return map;
}
