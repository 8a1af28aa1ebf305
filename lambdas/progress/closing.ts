import type { TimelinePlan } from './timeline.ts';

/**
 * How a turn's timeline closes: its closing line, and its plan with the turn's stage settled.
 * Pure; lambdas/progress/turn-progress.ts applies them, lambdas/progress/redraw.ts shows them.
 */

/** How a turn ended, as its timeline says it. */
export type TurnEnd = { kind: 'continues' } | { kind: 'done' } | { kind: 'stopped'; reason: string };

/** `Done: 6 steps in 42 s`, or `Stopped after 3 steps: <reason>`. */
export function closingLine(end: TurnEnd, steps: number, elapsedMs: number): string {
  const counted = `${steps} step${steps === 1 ? '' : 's'}`;
  const seconds = Math.max(1, Math.round(elapsedMs / 1000));
  return end.kind === 'stopped'
    ? `:double_vertical_bar: Stopped after ${counted}: ${end.reason}`
    : `:white_check_mark: Done: ${counted} in ${seconds} s`;
}

/**
 * The plan as the turn leaves it: a turn that is done has done its stage's part; a stopped one
 * has not (a stage is never left "in progress" under a stop). Undefined when nothing changes.
 */
export function closedPlan(plan: TimelinePlan, end: TurnEnd): TimelinePlan | undefined {
  if (end.kind === 'continues' || !plan.steps.some((s) => s.status === 'in_progress')) return undefined;
  const status = end.kind === 'done' ? ('complete' as const) : ('error' as const);
  return { ...plan, steps: plan.steps.map((s) => (s.status === 'in_progress' ? { ...s, status } : s)) };
}
