import { type AgentLimits, type DailySpendStore, dailyCeilingReached } from '../../../agents/limits.ts';
import { usageOf } from '../../../agents/model-reply.ts';
import type { LedgerWriter, ModelClient } from '../../../agents/ports.ts';
import { costOfCall, type ModelPrice, utcDay } from '../../../agents/pricing.ts';
import { type TemplateAdvisor, TemplateReviewCache } from '../../../log-analysis/index.ts';
import type { TelemetryConfig } from './config.ts';

/**
 * The configured model as the log template miner's advisor (query_logs, when
 * `logTemplateReview.enabled`): one Messages API call per review, its `max_tokens` set here from
 * the configuration, and its tokens and estimated cost added to the conversation's ledger the
 * way an agent turn's calls are (priced with `MODEL_PRICE`), and to the platform's spend of the
 * day, whose ceiling (`agentLimits.maxDailyCostUsd`) it also respects: past it, no review call
 * is made (the query goes on with the miner's templates). The review cache lives as long as
 * the function instance, so a template is asked about once however many queries show it.
 */
export interface TemplateReviewDeps {
  /** The advisor for one conversation's query: its calls are counted in that conversation's ledger. */
  advisorFor(conversationId: string): TemplateAdvisor;
  cache: TemplateReviewCache;
}

export interface ModelTemplateAdvisorOptions {
  /** The model client; resolved on the first review only (a function that never reviews never builds it). */
  model: () => Promise<ModelClient>;
  modelId: string;
  /** The model's price; without one the calls' tokens are counted at no cost. */
  price?: ModelPrice;
  ledger: LedgerWriter;
  config: TelemetryConfig['logTemplateReview'];
  /** Most templates remembered. @default 10000 */
  cacheSize?: number;
  /** The platform's spend per UTC day and its ceiling, shared with the agent turns. @default - not counted */
  daily?: { store: DailySpendStore; limits: AgentLimits; now?: () => Date };
}

/** The day's ceiling is reached: no review call is made. */
export class ReviewBudgetSpentError extends Error {
  override readonly name = 'ReviewBudgetSpentError';
}

export function modelTemplateReview(options: ModelTemplateAdvisorOptions): TemplateReviewDeps {
  let client: Promise<ModelClient> | undefined;
  const model = () => {
    client ??= options.model().catch((error: unknown) => {
      // A configuration error must not stick to the instance: the next review tries again.
      client = undefined;
      throw error;
    });
    return client;
  };
  return {
    cache: new TemplateReviewCache(options.cacheSize),
    advisorFor: (conversationId) => async (prompt) => {
      const { daily } = options;
      const day = daily ? utcDay((daily.now ?? (() => new Date()))()) : '';
      if (daily?.limits.maxDailyCostUsd !== undefined) {
        const reached = dailyCeilingReached(await daily.store.spentOn(day), daily.limits, day);
        if (reached !== undefined) throw new ReviewBudgetSpentError(reached);
      }
      const reply = await (await model()).createMessage({
        model: options.modelId,
        max_tokens: options.config.maxOutputTokens,
        messages: [{ role: 'user', content: prompt }],
      });
      const usage = usageOf(reply);
      const cost = options.price ? costOfCall(usage, options.price) : 0;
      await options.ledger(conversationId, { ...usage, ...(cost > 0 ? { costMicroUsd: cost } : {}) });
      if (daily && cost > 0) await daily.store.add(day, cost);
      const text = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      return {
        text,
        usage: { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 },
      };
    },
  };
}
