import type { IssuePipelineSettings } from './config.ts';
import type { IssueState } from './state.ts';

/**
 * The pipeline's hard limits, held by code at every hand-off (and by the state machine's own
 * timeout): a ceiling on model tokens and on their cost, and a wall-clock limit. Attempts are
 * held where the writer is sent back (hand-off.ts).
 */

export type PipelineLimits = Pick<
  IssuePipelineSettings,
  'maxTokens' | 'maxCostUsd' | 'costPerMillionTokens' | 'wallClockMinutes'
>;

/** Dollars for `tokens` at the configured price. */
export function costOf(tokens: number, limits: Pick<PipelineLimits, 'costPerMillionTokens'>): number {
  return (tokens / 1_000_000) * limits.costPerMillionTokens;
}

/** Why the pipeline may not go on, in words for people; undefined while it may. */
export function limitReached(
  state: IssueState,
  spend: { tokens: number },
  limits: PipelineLimits,
  nowMs: number,
): string | undefined {
  if (spend.tokens >= limits.maxTokens) {
    return `the pipeline used ${spend.tokens.toLocaleString('en-US')} model tokens, its ceiling is ${limits.maxTokens.toLocaleString('en-US')}`;
  }
  const cost = costOf(spend.tokens, limits);
  if (cost >= limits.maxCostUsd) {
    return `the pipeline's model cost reached $${cost.toFixed(2)}, its ceiling is $${limits.maxCostUsd.toFixed(2)}`;
  }
  const minutes = (nowMs - Date.parse(state.pipeline.started_at)) / 60_000;
  if (minutes >= limits.wallClockMinutes) {
    return `the pipeline ran ${Math.floor(minutes)} minutes, its wall-clock limit is ${limits.wallClockMinutes}`;
  }
  return undefined;
}
