import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HostedProcess, ProcessFailedError, startProcess } from '../process-host.ts';
import { BuildMemo, recordedPhase, replayInto } from './build-memo.ts';
import { finishPhase, isRunning, stamp, startPhase } from './build-phases.ts';
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
import type { Build, PhaseContext, PhaseType } from './model.ts';
import { reportFiles } from './reports.ts';

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
  /**
   * Where what the commands of a build did is kept, and replayed for a later build of the same
   * tree, buildspec and environment instead of running them again (build-memo.ts).
   * @default every build runs its commands
   */
  readonly memo?: BuildMemo;
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
        const control = {
          setChild: (c: HostedProcess) => {
            child = c;
          },
          interrupted: () => ending !== undefined,
        };
        const reportsFrom = await commandsOrReplay(build, plan, source, workDir, log, now, control);
        if (reportsFrom !== undefined && plan.collectReports !== undefined) {
          const arns = await plan.collectReports(reportsFrom);
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

/**
 * Runs the build's commands, or replays those of an earlier build of its memo key (recording
 * them when they ran to their end); where its test reports are to be read from, or undefined
 * when it was interrupted before anything ran.
 */
async function commandsOrReplay(
  build: Build,
  plan: BuildPlan,
  source: { dir: string; tree: string },
  workDir: string,
  log: (line: string) => void,
  now: () => Date,
  control: { setChild: (child: HostedProcess) => void; interrupted: () => boolean },
): Promise<string | undefined> {
  if (plan.memo === undefined) {
    await runCommands(build, plan, source.dir, workDir, log, now, control);
    return source.dir;
  }
  const key = await memoKey(plan, source.tree);
  const memo = await plan.memo.recallOrClaim(key, control.interrupted);
  if (memo === undefined) return undefined;
  if ('recalled' in memo) {
    replayInto(build, memo.recalled, log, now);
    return memo.recalled.reportsDir;
  }
  try {
    const lines: string[] = [];
    const firstPhase = build.phases.length;
    const record = (line: string) => {
      lines.push(line);
      log(line);
    };
    await runCommands(build, plan, source.dir, workDir, record, now, control);
    if (!control.interrupted()) {
      const phases = build.phases.slice(firstPhase).map(recordedPhase);
      const files = await reportFiles(plan.buildspec.reports, source.dir);
      // A memo that cannot be written only means the next build runs its commands.
      await plan.memo.keep(key, { phases, lines }, source.dir, files).catch(() => undefined);
    }
    return source.dir;
  } finally {
    await memo.release();
  }
}

/** The memo's key of this build, its checkout's tree being `tree`. */
async function memoKey(plan: BuildPlan, tree: string): Promise<string> {
  return BuildMemo.key({
    tree,
    buildspec: plan.buildspec,
    environment: plan.environment,
    isolation: await isolationMode(),
    projectRoot: plan.projectRoot ?? process.cwd(),
  });
}

/** DOWNLOAD_SOURCE: clones the repository and checks out the version; the checkout's path and tree, or undefined when it failed. */
async function downloadSource(
  build: Build,
  plan: BuildPlan,
  workDir: string,
  container: (message: string) => void,
  now: () => Date,
  setChild: (child: HostedProcess) => void,
): Promise<{ dir: string; tree: string } | undefined> {
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
    const [commit = '', tree = ''] = (await git(['-C', sourceDir, 'rev-parse', 'HEAD', 'HEAD^{tree}'])).split(
      '\n',
    );
    build.resolvedSourceVersion = commit.trim();
    container(`CODEBUILD_SRC_DIR=${sourceDir}`);
    container(`Phase complete: DOWNLOAD_SOURCE State: SUCCEEDED`);
    finishPhase(phase, 'SUCCEEDED', now());
    return { dir: sourceDir, tree: tree.trim() };
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
