import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { BuildMemo } from './build-memo.ts';
import { type RunningBuild, runBuild } from './build-runner.ts';
import { parseBuildspec } from './buildspec.ts';
import { CodeBuildApiError, invalidInput } from './errors.ts';
import { BuildLogs, type LogEvent } from './logs.ts';
import type { Build, CreateProjectInput, EnvironmentVariable, Project, StartBuildInput } from './model.ts';
import { ReportStore } from './reports.ts';

export interface CodeBuildServiceOptions {
  /** @default 'us-east-1' */
  region?: string;
  /** @default '000000000000' */
  account?: string;
  /** This project's root: its `node_modules/.bin` is on every build's PATH (tsx, tsc...). @default process.cwd() */
  projectRoot?: string;
  /**
   * Milliseconds in a build's minute: a build is TIMED_OUT after `timeoutInMinutes` of them.
   * The sandbox keeps real minutes (a build runs real code, as Tasks that run code keep their
   * real timeouts); tests shorten them.
   * @default 60000
   */
  minuteMs?: number;
  /** The cap of one build's log, in bytes (older lines are dropped first). @default 1048576 */
  maxLogBytes?: number;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * Where the git CLI clones a source location from: the sandbox maps its GitHub emulator's
   * repository URLs (`https://<host>/<owner>/<repo>.git`) to the repositories on disk here.
   * @default the location unchanged (a path on disk, or a URL git can clone)
   */
  resolveLocation?: (location: string) => string;
  /** Sees every log line of every build (group `/aws/codebuild/<project>`, stream per build). */
  onLogEvent?: (groupName: string, streamName: string, event: LogEvent) => void;
  /**
   * A directory where what each build's commands did is kept by tree, buildspec and environment,
   * and replayed for a later build with the same three instead of running them again. Only for
   * builds whose commands depend on nothing else (build-memo.ts says what that excludes).
   * @default every build runs its commands
   */
  memoDir?: string;
}

/**
 * The sandbox's CodeBuild: projects (created through the API or registered from the stack's
 * template) and their builds, each run by `runBuild` in a clean temporary checkout. Builds
 * are kept, with their logs, for the life of the sandbox.
 */
export class CodeBuildService {
  private readonly projects = new Map<string, Project>();
  private readonly builds = new Map<string, { build: Build; running: RunningBuild }>();
  private readonly logs: BuildLogs;
  /** The builds' test reports (BatchGetReports, DescribeTestCases). */
  readonly reports: ReportStore;
  private readonly region: string;
  private readonly account: string;
  private readonly now: () => Date;
  private readonly memo: BuildMemo | undefined;

  constructor(private readonly options: CodeBuildServiceOptions = {}) {
    this.memo = options.memoDir === undefined ? undefined : new BuildMemo(options.memoDir);
    this.region = options.region ?? 'us-east-1';
    this.account = options.account ?? '000000000000';
    this.now = options.now ?? (() => new Date());
    this.logs = new BuildLogs(options.maxLogBytes ?? 1024 * 1024, options.onLogEvent);
    this.reports = new ReportStore(this.region, this.account, this.now);
  }

  createProject(input: CreateProjectInput): Project {
    if (this.projects.has(input.name)) {
      throw new CodeBuildApiError('ResourceAlreadyExistsException', `Project already exists: ${input.name}`);
    }
    const at = this.now();
    const project: Project = {
      name: input.name,
      arn: `arn:aws:codebuild:${this.region}:${this.account}:project/${input.name}`,
      source: input.source,
      ...(input.sourceVersion ? { sourceVersion: input.sourceVersion } : {}),
      artifacts: input.artifacts,
      environment: {
        ...input.environment,
        environmentVariables: input.environment.environmentVariables ?? [],
      },
      serviceRole: input.serviceRole,
      timeoutInMinutes: input.timeoutInMinutes ?? 60,
      queuedTimeoutInMinutes: input.queuedTimeoutInMinutes ?? 480,
      created: at,
      lastModified: at,
      builds: 0,
    };
    this.projects.set(project.name, project);
    return project;
  }

  batchGetProjects(names: readonly string[]): { projects: Project[]; projectsNotFound: string[] } {
    const found = names.flatMap((name) => {
      const project = this.projects.get(name) ?? [...this.projects.values()].find((p) => p.arn === name);
      return project ? [project] : [];
    });
    return {
      projects: found,
      projectsNotFound: names.filter((name) => !found.some((p) => p.name === name || p.arn === name)),
    };
  }

  startBuild(input: StartBuildInput): Build {
    const project = this.projects.get(input.projectName);
    if (!project)
      throw new CodeBuildApiError(
        'ResourceNotFoundException',
        `Project cannot be found: arn:aws:codebuild:${this.region}:${this.account}:project/${input.projectName}`,
      );
    const location = input.sourceLocationOverride ?? project.source.location;
    if (!location)
      throw invalidInput(
        'Source location is required (the project has none and no sourceLocationOverride was given)',
      );
    const buildspecText = input.buildspecOverride ?? project.source.buildspec;
    if (!buildspecText)
      throw invalidInput(
        'The sandbox runs a buildspec given inline: set the project source buildspec or buildspecOverride',
      );
    const buildspec = parseBuildspec(buildspecText);
    const variables = mergeVariables(
      project.environment.environmentVariables,
      input.environmentVariablesOverride ?? [],
    );
    const timeoutInMinutes = input.timeoutInMinutesOverride ?? project.timeoutInMinutes;

    project.builds += 1;
    const uuid = randomUUID();
    const id = `${project.name}:${uuid}`;
    const arn = `arn:aws:codebuild:${this.region}:${this.account}:build/${id}`;
    const groupName = `/aws/codebuild/${project.name}`;
    const sourceVersion = input.sourceVersion ?? project.sourceVersion;
    const build: Build = {
      id,
      arn,
      buildNumber: project.builds,
      startTime: this.now(),
      currentPhase: 'SUBMITTED',
      buildStatus: 'IN_PROGRESS',
      ...(sourceVersion ? { sourceVersion } : {}),
      projectName: project.name,
      phases: [],
      source: {
        type: input.sourceTypeOverride ?? project.source.type,
        location,
        buildspec: buildspecText,
      },
      secondarySources: [],
      secondarySourceVersions: [],
      artifacts: { location: '' },
      secondaryArtifacts: [],
      cache: { type: 'NO_CACHE' },
      environment: {
        ...project.environment,
        environmentVariables: variables,
        privilegedMode: false,
        imagePullCredentialsType: 'CODEBUILD',
      },
      serviceRole: project.serviceRole,
      logs: {
        groupName,
        streamName: uuid,
        deepLink: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#logsV2:log-groups/log-group/${encodeURIComponent(groupName)}/log-events/${uuid}`,
        cloudWatchLogsArn: `arn:aws:logs:${this.region}:${this.account}:log-group:${groupName}:log-stream:${uuid}`,
        cloudWatchLogs: { status: 'ENABLED' },
        s3Logs: { status: 'DISABLED', encryptionDisabled: false },
      },
      timeoutInMinutes,
      queuedTimeoutInMinutes: project.queuedTimeoutInMinutes,
      buildComplete: false,
      initiator: 'sandbox',
      encryptionKey: `arn:aws:kms:${this.region}:${this.account}:alias/aws/s3`,
    };
    const environment = this.buildEnvironment(build, buildspec.variables, variables);
    const running = runBuild(
      build,
      {
        location: this.options.resolveLocation?.(location) ?? location,
        ...(sourceVersion ? { sourceVersion } : {}),
        buildspec,
        environment,
        timeoutMs: timeoutInMinutes * (this.options.minuteMs ?? 60_000),
        projectRoot: this.options.projectRoot ?? process.cwd(),
        ...(this.memo === undefined ? {} : { memo: this.memo }),
        ...(buildspec.reports.length === 0
          ? {}
          : {
              collectReports: (sourceDir: string) =>
                this.reports.collect(build, buildspec.reports, sourceDir),
            }),
      },
      this.logs,
      this.now,
    );
    this.builds.set(id, { build, running });
    return snapshot(build);
  }

  batchGetBuilds(ids: readonly string[]): { builds: Build[]; buildsNotFound: string[] } {
    const builds: Build[] = [];
    const buildsNotFound: string[] = [];
    for (const id of ids) {
      const entry = this.builds.get(id) ?? [...this.builds.values()].find((b) => b.build.arn === id);
      if (entry) builds.push(snapshot(entry.build));
      else buildsNotFound.push(id);
    }
    return { builds, buildsNotFound };
  }

  stopBuild(id: string): Build {
    const entry = this.builds.get(id);
    if (!entry) throw new CodeBuildApiError('ResourceNotFoundException', `Build cannot be found: ${id}`);
    entry.running.stop();
    return snapshot(entry.build);
  }

  /** Resolves with the build once it is COMPLETED. */
  async waitForBuild(id: string): Promise<Build> {
    const entry = this.builds.get(id);
    if (!entry) throw new CodeBuildApiError('ResourceNotFoundException', `Build cannot be found: ${id}`);
    await entry.running.done;
    return snapshot(entry.build);
  }

  /** The build's log events, as CloudWatch Logs GetLogEvents would return them, and how many lines the cap dropped. */
  readLog(id: string): { events: LogEvent[]; droppedEvents: number } {
    const entry = this.builds.get(id);
    if (!entry) throw new CodeBuildApiError('ResourceNotFoundException', `Build cannot be found: ${id}`);
    return this.logs.read(entry.build.logs.groupName, entry.build.logs.streamName);
  }

  /** Stops every running build and waits for them to finish (the sandbox's shutdown). */
  async close(): Promise<void> {
    for (const { running } of this.builds.values()) running.stop();
    await Promise.allSettled([...this.builds.values()].map(({ running }) => running.done));
  }

  /** Forgets every build and its logs, keeping the projects (a sandbox serving its next user). `close()` first. */
  reset(): void {
    for (const project of this.projects.values()) project.builds = 0;
    this.builds.clear();
    this.logs.clear();
    this.reports.clear();
  }

  /**
   * The build's environment: CodeBuild's own variables, then the buildspec's, the project's and
   * the StartBuild overrides (later wins, as CodeBuild orders them). Nothing of the sandbox's
   * own environment (its credentials, secrets) is passed on, only PATH, with this project's
   * `node_modules/.bin` first.
   */
  private buildEnvironment(
    build: Build,
    buildspecVariables: Readonly<Record<string, string>>,
    variables: readonly EnvironmentVariable[],
  ): Record<string, string> {
    const bin = join(this.options.projectRoot ?? process.cwd(), 'node_modules', '.bin');
    return {
      PATH: `${bin}:${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`,
      LANG: 'C.UTF-8',
      CI: 'true',
      CODEBUILD_BUILD_ID: build.id,
      CODEBUILD_BUILD_ARN: build.arn,
      CODEBUILD_BUILD_NUMBER: String(build.buildNumber),
      CODEBUILD_INITIATOR: build.initiator,
      CODEBUILD_SOURCE_VERSION: build.sourceVersion ?? '',
      CODEBUILD_START_TIME: String(build.startTime.getTime()),
      CODEBUILD_LOG_PATH: build.logs.streamName,
      AWS_REGION: this.region,
      AWS_DEFAULT_REGION: this.region,
      ...buildspecVariables,
      ...Object.fromEntries(variables.map((v) => [v.name, v.value])),
    };
  }
}

/** Project variables with the overrides applied by name; only PLAINTEXT ones can be run here. */
function mergeVariables(
  project: readonly EnvironmentVariable[],
  overrides: readonly EnvironmentVariable[],
): EnvironmentVariable[] {
  const merged = new Map(project.map((v) => [v.name, v]));
  for (const v of overrides) merged.set(v.name, v);
  for (const v of merged.values()) {
    if (v.type !== 'PLAINTEXT') {
      throw invalidInput(
        `Environment variable ${v.name}: type ${v.type} is not emulated by the sandbox (PLAINTEXT only)`,
      );
    }
  }
  return [...merged.values()];
}

/** A copy of the build as it is now (the runner keeps updating the original). */
function snapshot(build: Build): Build {
  return structuredClone(build);
}
