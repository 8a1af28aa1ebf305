import type { TurnBudget } from './ports.ts';

/** Room left between the turn's deadline and the Lambda timeout, to save the transcript and return. */
export const SAFETY_MARGIN_MS = 30_000;
/** A turn's time budget when the environment does not say otherwise (the AgentTurn Lambda times out at 300 s). */
export const DEFAULT_TURN_BUDGET_MS = 240_000;
/** Tool calls of one turn when the environment does not say otherwise. */
const DEFAULT_MAX_TOOL_CALLS = 25;

/**
 * A turn's budget: the configured time budget, but never past the Lambda's remaining time
 * minus the safety margin, and the tool-call cap.
 */
export function turnBudget(options: {
  nowMs: number;
  /** The Lambda context's remaining time, when there is a context. */
  remainingMs?: number;
  budgetMs?: number;
  maxToolCalls?: number;
}): TurnBudget {
  const budgetMs = options.budgetMs ?? DEFAULT_TURN_BUDGET_MS;
  const available =
    options.remainingMs === undefined ? budgetMs : Math.min(budgetMs, options.remainingMs - SAFETY_MARGIN_MS);
  return {
    deadlineMs: options.nowMs + Math.max(0, available),
    maxToolCalls: options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
  };
}
