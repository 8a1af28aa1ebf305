import { type AgentLimits, type DailySpendStore, dailyCeilingReached } from '../../agents/limits.ts';
import { usageOf } from '../../agents/model-reply.ts';
import type { AgentLogger, ModelClient } from '../../agents/ports.ts';
import { costOfCall, type ModelPrice, utcDay } from '../../agents/pricing.ts';
import type { Clock } from '../../kernel/ports.ts';

/**
 * What channel conversations' model calls cost (issue 16 item 4): the same prices as agent
 * turns (`MODEL_PRICE` for the answering model, the judge's own price beside it), added to the
 * same per-day counter, and held by the same `agentLimits.maxDailyCostUsd`.
 */
export interface ChannelSpending {
  /** The money bounds; only `maxDailyCostUsd` applies here (a channel conversation has no ledger). */
  limits: AgentLimits;
  /** The platform's spend per UTC day, shared with every agent turn. */
  dailySpend: DailySpendStore;
  /** Price by the model id a request names; a model without one costs nothing in the counter. */
  prices: Readonly<Record<string, ModelPrice>>;
  clock: Clock;
  logger: AgentLogger;
}

/**
 * Why no channel model call may run now, in words for people (the day's ceiling is reached);
 * undefined when it may, or when no ceiling is set. Reads the day's counter (a failed read
 * throws: the job is retried, and no model call is made unchecked).
 */
export async function dailyBudgetSpent(spending: ChannelSpending | undefined): Promise<string | undefined> {
  if (spending?.limits.maxDailyCostUsd === undefined) return undefined;
  const day = utcDay(spending.clock.now());
  return dailyCeilingReached(await spending.dailySpend.spentOn(day), spending.limits, day);
}

/**
 * `model`, with each reply's cost (its usage at the price of the model the request named)
 * added to the day's counter. The add is bookkeeping, as in an agent turn: a failed add is
 * logged, and the answer it paid for is still given.
 */
export function pricedModel(model: ModelClient, spending: ChannelSpending): ModelClient {
  return {
    async createMessage(params, options) {
      const reply = await model.createMessage(params, options);
      const price = spending.prices[params.model];
      const cost = price ? costOfCall(usageOf(reply), price) : 0;
      if (cost > 0) {
        const day = utcDay(spending.clock.now());
        await spending.dailySpend
          .add(day, cost)
          .catch((error: unknown) =>
            spending.logger.warn('could not add to the daily spend', { error, day, model: params.model }),
          );
      }
      return reply;
    },
  };
}
