import type { Build, BuildPhase, BuildStatus, PhaseContext, PhaseType } from './model.ts';

/** A build's phases as CodeBuild records them, and its log's `[Container]` timestamps. */

export function isRunning(phase: BuildPhase): boolean {
  return phase.phaseStatus === undefined && phase.phaseType !== 'COMPLETED';
}

export function startPhase(build: Build, phaseType: PhaseType, at: Date): BuildPhase {
  // A running phase has no status yet, as BatchGetBuilds shows it.
  const phase: BuildPhase = { phaseType, startTime: at };
  build.phases.push(phase);
  build.currentPhase = phaseType;
  return phase;
}

export function finishPhase(
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

/** The timestamp of a `[Container]` line. */
export const CONTAINER_STAMP = /^(\[Container\] )\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\.\d{6}/;

/** CodeBuild's `[Container]` timestamp, e.g. `2026/11/23 19:30:00.123456`. */
export function stamp(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '/')} ${iso.slice(11, 23)}000`;
}
