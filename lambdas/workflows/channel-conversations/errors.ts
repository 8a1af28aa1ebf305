/**
 * The platform's daily model budget (`agentLimits.maxDailyCostUsd`) was reached, so a channel
 * conversation's model call (the judge's) was not made. Not retryable before midnight UTC.
 */
export class DailyBudgetSpentError extends Error {
  override readonly name = 'DailyBudgetSpentError';
  constructor(readonly reason: string) {
    super(`no model call: ${reason}`);
  }
}
