import { describe, expect, it } from 'vitest';
import { turnBudget } from '../../lambdas/agents/budget.ts';

/** A turn's tool calls when its profile sets no limit (stated here, not imported: the value is what this test checks). */
const DEFAULT_MAX_TOOL_CALLS = 25;

describe('turn budget', () => {
  const nowMs = Date.parse('2015-11-21T12:00:00Z');

  it('is the configured budget when the Lambda has time to spare', () => {
    expect(turnBudget({ nowMs, remainingMs: 300_000, budgetMs: 240_000 })).toEqual({
      deadlineMs: nowMs + 240_000,
      maxToolCalls: DEFAULT_MAX_TOOL_CALLS,
    });
  });

  it("ends 30 seconds before the Lambda's timeout when that comes first", () => {
    expect(turnBudget({ nowMs, remainingMs: 100_000, budgetMs: 240_000 }).deadlineMs).toBe(nowMs + 70_000);
  });

  it('is spent at once when the Lambda has less than the safety margin left', () => {
    expect(turnBudget({ nowMs, remainingMs: 10_000 }).deadlineMs).toBe(nowMs);
  });

  it('takes the tool-call cap it is given', () => {
    expect(turnBudget({ nowMs, maxToolCalls: 3 }).maxToolCalls).toBe(3);
  });
});
