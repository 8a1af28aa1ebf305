import { formatUsd, microUsd } from '../../shared/money.ts';
import type { IssuePipelineSettings } from './config.ts';
import type { IssueState } from './state.ts';

/**
 * The pipeline's hard limits, held by code at every hand-off (and by the state machine's own
 * timeout): a ceiling on model tokens and on their cost, and a wall-clock limit. Attempts are
 * held where the writer is sent back (hand-off.ts).
 */

export type PipelineLimits = Pick<IssuePipelineSettings, 'maxTokens' | 'maxCostUsd' | 'wallClockMinutes'>;

/**
 * What the pipeline's conversation has spent, from its ledger: tokens (input + output) and the
 * estimated cost the agent turns priced per call by the model that served them
 * (lambdas/agents/pricing.ts), in micro-dollars.
 */
export interface PipelineSpend {
  tokens: number;
  costMicroUsd: number;
}

/** Why the pipeline may not go on, in words for people; undefined while it may. */
export function limitReached(
  state: IssueState,
  spend: PipelineSpend,
  limits: PipelineLimits,
  nowMs: number,
): string | undefined {
  if (spend.tokens >= limits.maxTokens) {
    return `the pipeline used ${spend.tokens.toLocaleString('en-US')} model tokens, its ceiling is ${limits.maxTokens.toLocaleString('en-US')}`;
  }
  const ceiling = microUsd(limits.maxCostUsd);
  if (spend.costMicroUsd >= ceiling) {
    return `the pipeline's estimated model cost reached ${formatUsd(spend.costMicroUsd)}, its ceiling is ${formatUsd(ceiling)}`;
  }
  const minutes = (nowMs - Date.parse(state.pipeline.started_at)) / 60_000;
  if (minutes >= limits.wallClockMinutes) {
    return `the pipeline ran ${Math.floor(minutes)} minutes, its wall-clock limit is ${limits.wallClockMinutes}`;
  }
  return undefined;
}
