import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HostedProcess, ProcessFailedError, startProcess } from '../process-host.ts';
import { COMMAND_SCRIPT, type CommandEnd, failureReason } from './build-script.ts';
import { type ParsedBuildspec, PHASE_NAMES } from './buildspec.ts';
import {
  claimBuildUser,
  handOver,
  type IsolationMode,
  isolatedCommand,
  isolationMode,
  isolationNote,
} from './isolation.ts';
import { type BuildLogs, lineSplitter } from './logs.ts';
import type { Build, BuildPhase, BuildStatus, PhaseContext, PhaseType } from './model.ts';

/** What one build runs: where its source is, which version, its commands and environment. */
export interface BuildPlan {
  /** A git repository: a path on disk or a URL the git CLI can clone. */
  readonly location: string;
  /** A branch (`main`, `refs/heads/main`), a tag or a commit; undefined: the default branch. */
  readonly sourceVersion?: string;
  readonly buildspec: ParsedBuildspec;
  /** The build's whole environment (nothing of the sandbox's own is passed on). */
  readonly environment: Record<string, string>;
  /** Milliseconds the build may run before it is TIMED_OUT. */
  readonly timeoutMs: number;
  /**
   * The sandbox's project root, hidden from the build's commands (isolation.ts).
   * @default process.cwd()
   */
  readonly projectRoot?: string;
  /**
   * Reads the buildspec's test reports from the checkout once the commands ended (whatever
   * their outcome, before the checkout is removed); the reports' ARNs.
   * @default no reports
   */
  readonly collectReports?: (sourceDir: string) => Promise<string[]>;
}

export interface RunningBuild {
  /** Resolves when the build is COMPLETED, whatever its status. */
  readonly done: Promise<void>;
  /** StopBuild: ends the running command and marks the build STOPPED. */
  stop(): void;
}

/**
 * Runs one build in a clean temporary checkout (cloned with the git CLI, removed afterwards),
 * updating `build` in place phase by phase as CodeBuild reports it, and writing its log to
 * `logs` under `build.logs`.
 */
export function runBuild(build: Build, plan: BuildPlan, logs: BuildLogs, now: () => Date): RunningBuild {
  const log = (message: string) => logs.append(build.logs.groupName, build.logs.streamName, message);
  const container = (message: string) => log(`[Container] ${stamp(now())} ${message}`);
  let child: HostedProcess | undefined;
  let ending: { status: 'TIMED_OUT' | 'STOPPED'; context?: PhaseContext } | undefined;

  const interrupt = (status: 'TIMED_OUT' | 'STOPPED', context?: PhaseContext) => {
    if (ending || build.buildComplete) return;
    ending = { status, ...(context ? { context } : {}) };
    container(status === 'TIMED_OUT' ? 'Build timed out' : 'Build stopped');
    // A command runs in its own process group: what it started ends with it.
    child?.kill('SIGKILL');
  };

  // As StartBuild answers: submitted, and queued.
  finishPhase(startPhase(build, 'SUBMITTED', now()), 'SUCCEEDED', now());
  startPhase(build, 'QUEUED', now());

  const done = (async () => {
    const timer = setTimeout(
      () => interrupt('TIMED_OUT', { statusCode: 'BUILD_TIMED_OUT', message: 'Build has timed out. ' }),
      plan.timeoutMs,
    );
    const workDir = await mkdtemp(join(tmpdir(), 'sandbox-codebuild-'));
    try {
      const queued = build.phases.at(-1);
      if (queued) finishPhase(queued, 'SUCCEEDED', now());
      finishPhase(startPhase(build, 'PROVISIONING', now()), 'SUCCEEDED', now());
      const source = await downloadSource(build, plan, workDir, container, now, (c) => {
        child = c;
      });
      if (source !== undefined && !ending) {
        await runCommands(build, plan, source, workDir, log, now, {
          setChild: (c) => {
            child = c;
          },
          interrupted: () => ending !== undefined,
        });
        if (plan.collectReports !== undefined) {
          const arns = await plan.collectReports(source);
          if (arns.length > 0) build.reportArns = arns;
        }
      }
      const current = build.phases.at(-1);
      if (ending && current !== undefined && isRunning(current)) {
        finishPhase(current, ending.status, now(), ending.context);
      }
      build.buildStatus =
        ending?.status ?? (build.phases.some((p) => p.phaseStatus === 'FAILED') ? 'FAILED' : 'SUCCEEDED');
    } catch (error) {
      container(`Build failed in the sandbox: ${(error as Error).message}`);
      const current = build.phases.at(-1);
      if (current !== undefined && isRunning(current)) {
        finishPhase(current, 'FAULT', now(), { statusCode: 'CLIENT_ERROR', message: String(error) });
      }
      build.buildStatus = 'FAULT';
    } finally {
      clearTimeout(timer);
      await rm(workDir, { recursive: true, force: true });
    }
    for (const phase of ['UPLOAD_ARTIFACTS', 'FINALIZING'] as const) {
      finishPhase(startPhase(build, phase, now()), 'SUCCEEDED', now());
    }
    build.phases.push({ phaseType: 'COMPLETED', startTime: now() });
    build.currentPhase = 'COMPLETED';
    build.endTime = now();
    build.buildComplete = true;
    container(`Phase complete: FINALIZING State: SUCCEEDED; build ${build.buildStatus}`);
  })();

  return { done, stop: () => interrupt('STOPPED') };
}

/** DOWNLOAD_SOURCE: clones the repository and checks out the version; the checkout's path, or undefined when it failed. */
async function downloadSource(
  build: Build,
  plan: BuildPlan,
  workDir: string,
  container: (message: string) => void,
  now: () => Date,
  setChild: (child: HostedProcess) => void,
): Promise<string | undefined> {
  const phase = startPhase(build, 'DOWNLOAD_SOURCE', now());
  const sourceDir = join(workDir, 'src');
  const version = plan.sourceVersion?.replace(/^refs\/heads\//, '');
  try {
    const git = async (args: string[]) => {
      const step = startProcess('git', args, { env: gitEnvironment() });
      setChild(step);
      const end = await step.ended;
      if (end.code !== 0) throw new ProcessFailedError(['git', ...args], end);
      return end.stdout.toString('utf8');
    };
    await git(['clone', '--quiet', '--no-checkout', plan.location, sourceDir]);
    await git(
      version ? ['-C', sourceDir, 'checkout', '--quiet', version] : ['-C', sourceDir, 'checkout', '--quiet'],
    );
    build.resolvedSourceVersion = (await git(['-C', sourceDir, 'rev-parse', 'HEAD'])).trim();
    container(`CODEBUILD_SRC_DIR=${sourceDir}`);
    container(`Phase complete: DOWNLOAD_SOURCE State: SUCCEEDED`);
    finishPhase(phase, 'SUCCEEDED', now());
    return sourceDir;
  } catch (error) {
    const reason = ((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
    const message = `CLIENT_ERROR: could not get the source ${plan.location}${version ? ` at ${version}` : ''}: ${reason}`;
    container(`Phase complete: DOWNLOAD_SOURCE State: FAILED`);
    container(`Phase context status code: ${message}`);
    finishPhase(phase, 'FAILED', now(), { statusCode: 'CLIENT_ERROR', message });
    return undefined;
  }
}

/**
 * INSTALL to POST_BUILD: each command a process of its own, its success read from how that
 * process ended (exit status 0), never from anything it printed. A command killed by a signal
 * (its shell gone) fails its phase. Phase transitions as CodeBuild's: a failed INSTALL or
 * PRE_BUILD (with `on-failure: ABORT`, the default) skips the later phases; a failed BUILD
 * still runs POST_BUILD, with CODEBUILD_BUILD_SUCCEEDING=0; a phase stops at its first failing
 * command. Returns early when the build is interrupted (its caller ends the running phase).
 */
async function runCommands(
  build: Build,
  plan: BuildPlan,
  sourceDir: string,
  workDir: string,
  log: (line: string) => void,
  now: () => Date,
  control: { setChild: (child: HostedProcess) => void; interrupted: () => boolean },
): Promise<void> {
  const container = (message: string) => log(`[Container] ${stamp(now())} ${message}`);
  const home = join(workDir, 'home');
  const tmp = join(workDir, 'tmp');
  await Promise.all([mkdir(home), mkdir(tmp)]);
  // The commands are code an agent may have written: kept from the project's files, the host,
  // the network and every other build.
  const mode = await isolationMode();
  const user = mode === 'namespace-uid' ? await claimBuildUser() : undefined;
  try {
    await handOver(mode, workDir, user?.uid);
    container(isolationNote(mode, user?.uid));
    let succeeding = true;
    for (const name of PHASE_NAMES) {
      const phase = plan.buildspec.phases[name] ?? { commands: [], onFailure: 'ABORT' as const };
      const type = name.toUpperCase() as PhaseType;
      const record = startPhase(build, type, now());
      container(`Entering phase ${type}`);
      let failure: { command: string; reason: string } | undefined;
      for (const command of phase.commands) {
        // A stop that lands between two commands starts no further one.
        if (control.interrupted()) return;
        container(`Running command ${command}`);
        const end = await runCommand(command, {
          mode,
          uid: user?.uid,
          projectRoot: plan.projectRoot ?? process.cwd(),
          workDir,
          sourceDir,
          env: {
            ...plan.environment,
            HOME: home,
            TMPDIR: tmp,
            CODEBUILD_SRC_DIR: sourceDir,
            CODEBUILD_RESOLVED_SOURCE_VERSION: build.resolvedSourceVersion ?? '',
            CODEBUILD_BUILD_SUCCEEDING: succeeding ? '1' : '0',
          },
          log,
          setChild: control.setChild,
        });
        if (control.interrupted()) return;
        if (end.code !== 0) {
          failure = { command, reason: failureReason(end) };
          container(`Command did not exit successfully ${command} ${failure.reason}`);
          break;
        }
      }
      if (failure === undefined) {
        container(`Phase complete: ${type} State: SUCCEEDED`);
        finishPhase(record, 'SUCCEEDED', now());
        continue;
      }
      const message = `Error while executing command: ${failure.command}. Reason: ${failure.reason}`;
      container(`Phase complete: ${type} State: FAILED`);
      container(`Phase context status code: COMMAND_EXECUTION_ERROR Message: ${message}`);
      finishPhase(record, 'FAILED', now(), { statusCode: 'COMMAND_EXECUTION_ERROR', message });
      succeeding = false;
      if (phase.onFailure === 'ABORT' && (name === 'install' || name === 'pre_build')) return;
    }
  } finally {
    await user?.release();
  }
}

/** One command in its own isolated process; how that process ended. */
function runCommand(
  command: string,
  options: {
    mode: IsolationMode;
    uid: number | undefined;
    projectRoot: string;
    workDir: string;
    sourceDir: string;
    env: NodeJS.ProcessEnv;
    log: (line: string) => void;
    setChild: (child: HostedProcess) => void;
  },
): Promise<CommandEnd> {
  const isolated = isolatedCommand(options.mode, {
    projectRoot: options.projectRoot,
    workDir: options.workDir,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    command: ['bash', '--noprofile', '--norc', '-c', COMMAND_SCRIPT, 'bash', command],
  });
  const output = lineSplitter(options.log);
  const child = startProcess(isolated.file, isolated.args, {
    cwd: options.sourceDir,
    env: options.env,
    detached: true,
    onOutput: (chunk) => output.push(chunk),
  });
  options.setChild(child);
  return child.ended.then(
    (end): CommandEnd => {
      output.flush();
      return end.code === null ? { signal: end.signal ?? 'unknown' } : { code: end.code };
    },
    (error: Error): CommandEnd => {
      output.flush();
      options.log(`[Container] could not start the command: ${error.message}`);
      return { code: 127 };
    },
  );
}

function isRunning(phase: BuildPhase): boolean {
  return phase.phaseStatus === undefined && phase.phaseType !== 'COMPLETED';
}

function startPhase(build: Build, phaseType: PhaseType, at: Date): BuildPhase {
  // A running phase has no status yet, as BatchGetBuilds shows it.
  const phase: BuildPhase = { phaseType, startTime: at };
  build.phases.push(phase);
  build.currentPhase = phaseType;
  return phase;
}

function finishPhase(
  phase: BuildPhase,
  status: Exclude<BuildStatus, 'IN_PROGRESS'>,
  at: Date,
  context?: PhaseContext,
): void {
  phase.phaseStatus = status;
  phase.endTime = at;
  phase.durationInSeconds = Math.max(0, Math.round((at.getTime() - phase.startTime.getTime()) / 1000));
  if (context) phase.contexts = [context];
}

/** git without the user's configuration, prompts or hooks. */
function gitEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    HOME: tmpdir(),
  };
}

/** CodeBuild's `[Container]` timestamp, e.g. `2026/11/23 19:30:00.123456`. */
function stamp(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '/')} ${iso.slice(11, 23)}000`;
}
