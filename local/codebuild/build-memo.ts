import { createHash, randomUUID } from 'node:crypto';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CONTAINER_STAMP, finishPhase, stamp, startPhase } from './build-phases.ts';
import type { ParsedBuildspec } from './buildspec.ts';
import type { Build, BuildPhase, BuildStatus, PhaseContext, PhaseType } from './model.ts';

/**
 * What a build's commands did, kept by what decides it: the checked-out tree, the buildspec,
 * the environment (without the build's own identity) and how the commands are isolated. A later
 * build with the same four replays it (its phases, its log lines, its report files) instead of
 * running the same commands on the same files again.
 *
 * This holds only for commands whose outcome follows from those four: no clock, no randomness,
 * no network, no reading of the commit (its sha, its message) or of the build's own id. So it
 * is something a caller turns on for builds it knows are such (the demo repository's type
 * check and tests, run again and again by workflow scenarios), never the emulator's default.
 * A stopped, timed-out or interrupted build is never kept.
 */

/** CodeBuild's variables naming the build itself or its version: they differ between two builds of one tree. */
const IDENTITY_VARIABLES = new Set([
  'CODEBUILD_BUILD_ID',
  'CODEBUILD_BUILD_ARN',
  'CODEBUILD_BUILD_NUMBER',
  'CODEBUILD_START_TIME',
  'CODEBUILD_LOG_PATH',
  'CODEBUILD_SOURCE_VERSION',
]);

/** One phase from INSTALL on, as its build ended it. */
export interface RecordedPhase {
  phaseType: PhaseType;
  phaseStatus: Exclude<BuildStatus, 'IN_PROGRESS'>;
  contexts?: PhaseContext[];
}

/** What the commands of a build did. */
export interface RecordedCommands {
  phases: RecordedPhase[];
  /** The log lines written while the commands ran, in order. */
  lines: string[];
}

/** A recorded build: its commands, and a directory holding the report files they wrote (paths as in the checkout). */
export interface Recalled extends RecordedCommands {
  reportsDir: string;
}

/** How often a build waiting for another build of its key looks again. */
const WAIT_MS = 100;

export class BuildMemo {
  constructor(private readonly dir: string) {}

  /**
   * The build kept under `key`, or else the right to run it: while one build (in this process or
   * another one using the directory) runs the commands of a key, another build of that key waits
   * for its outcome instead of running them too. The claim is a directory named after the key
   * holding the runner's pid; it is given up when that build ends, kept or not, and taken over
   * when its process is gone. `cancelled`: the waiting build was stopped (it then runs nothing).
   */
  async recallOrClaim(
    key: string,
    cancelled: () => boolean,
  ): Promise<{ recalled: Recalled } | { release: () => Promise<void> } | undefined> {
    const claim = join(this.dir, `${key}.running`);
    for (;;) {
      const recalled = await this.recall(key);
      if (recalled !== undefined) return { recalled };
      if (cancelled()) return undefined;
      try {
        await mkdir(this.dir, { recursive: true });
        await mkdir(claim);
        await writeFile(join(claim, 'pid'), String(process.pid));
        return { release: () => rm(claim, { recursive: true, force: true }) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = Number(await readFile(join(claim, 'pid'), 'utf8').catch(() => ''));
      // A claim without a pid yet is being made; one whose process is gone is taken over.
      if (owner > 0 && !running(owner)) await rm(claim, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
    }
  }

  /** The key of a build of `tree` with `buildspec` in `environment`, its commands isolated as `isolation` says. */
  static key(parts: {
    tree: string;
    buildspec: ParsedBuildspec;
    environment: Readonly<Record<string, string>>;
    isolation: string;
    projectRoot: string;
  }): string {
    const environment = Object.entries(parts.environment)
      .filter(([name]) => !IDENTITY_VARIABLES.has(name))
      .sort(([a], [b]) => a.localeCompare(b));
    const text = JSON.stringify({ ...parts, environment });
    return createHash('sha256').update(text).digest('hex');
  }

  /** The build kept under `key`, if one is. */
  async recall(key: string): Promise<Recalled | undefined> {
    const entry = join(this.dir, key);
    try {
      const recorded = JSON.parse(await readFile(join(entry, 'commands.json'), 'utf8')) as RecordedCommands;
      return { ...recorded, reportsDir: join(entry, 'reports') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * Keeps `recorded` under `key`, with the report files (`reportFiles`, relative to `sourceDir`).
   * Written aside, then renamed: a reader never sees half an entry; of two builds keeping the
   * same key at once, the first rename wins (both recorded the same outcome).
   */
  async keep(
    key: string,
    recorded: RecordedCommands,
    sourceDir: string,
    reportFiles: readonly string[],
  ): Promise<void> {
    const entry = join(this.dir, key);
    const partial = `${entry}.partial-${randomUUID()}`;
    await mkdir(join(partial, 'reports'), { recursive: true });
    for (const file of reportFiles) {
      const target = join(partial, 'reports', file);
      await mkdir(dirname(target), { recursive: true });
      await cp(join(sourceDir, file), target);
    }
    await writeFile(join(partial, 'commands.json'), JSON.stringify(recorded));
    await rename(partial, entry).catch(() => rm(partial, { recursive: true, force: true }));
  }
}

/** A phase of a build as the memo keeps it (its times are the replaying build's own). */
export function recordedPhase(phase: BuildPhase): RecordedPhase {
  return {
    phaseType: phase.phaseType,
    phaseStatus: phase.phaseStatus ?? 'FAILED',
    ...(phase.contexts === undefined ? {} : { contexts: phase.contexts }),
  };
}

/** Writes a recorded build's log lines and phases as `build`'s own, stamped now. */
export function replayInto(
  build: Build,
  recorded: RecordedCommands,
  log: (line: string) => void,
  now: () => Date,
): void {
  log(
    `[Container] ${stamp(now())} Replaying the commands of an earlier build of the same tree, buildspec and environment`,
  );
  for (const line of recorded.lines) log(line.replace(CONTAINER_STAMP, `$1${stamp(now())}`));
  for (const phase of recorded.phases) {
    finishPhase(startPhase(build, phase.phaseType, now()), phase.phaseStatus, now(), phase.contexts?.[0]);
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
