import { type AgentLimits, type DailySpendStore, dailyCeilingReached } from '../../agents/limits.ts';
import { usageOf } from '../../agents/model-reply.ts';
import type { AgentLogger, ModelClient } from '../../agents/ports.ts';
import { costOfCall, type ModelPrice, microUsd, utcDay } from '../../agents/pricing.ts';
import { type DailyReservations, worstCaseOf } from '../../agents/reservations.ts';
import type { Ledger } from '../../kernel/model.ts';
import type { Clock } from '../../kernel/ports.ts';
import { conversationInScope } from '../../redaction/index.ts';
import { DailyBudgetSpentError } from './errors.ts';

/**
 * What channel conversations' model calls cost: the same prices as agent
 * turns (`MODEL_PRICE` for the answering model, the judge's own price beside it), added to the
 * same per-day counter, and held by the same `agentLimits.maxDailyCostUsd`.
 */
export interface ChannelSpending {
  /** The money bounds; only `maxDailyCostUsd` applies here (a channel conversation has no ledger). */
  limits: AgentLimits;
  /** The platform's spend per UTC day, shared with every agent turn. */
  dailySpend: DailySpendStore;
  /**
   * The same counter, for reservations: with it and a daily ceiling each call's worst case is
   * held before the call (atomically, against the ceiling) and settled after, so concurrent
   * answers cannot overrun the ceiling. Without a ceiling nothing is held: each call's real
   * cost is added after it. @default - the counter is read before, and added to after
   */
  reservations?: DailyReservations;
  /** Price by the model id a request names; a model without one costs nothing in the counter. */
  prices: Readonly<Record<string, ModelPrice>>;
  clock: Clock;
  logger: AgentLogger;
  /**
   * Adds each call's tokens and cost to the ledger of the conversation it was made for (the one
   * in scope, `inConversation`). @default - counted on the day's counter only
   */
  ledger?: (conversationId: string, delta: Partial<Ledger>) => Promise<void>;
}

/** Adds a call's usage and cost to its conversation's ledger: bookkeeping, so a failed add is logged. */
async function countInLedger(spending: ChannelSpending, reply: unknown, cost: number): Promise<void> {
  const conversationId = conversationInScope();
  if (spending.ledger === undefined || conversationId === undefined) return;
  await spending
    .ledger(conversationId, { ...usageOf(reply), ...(cost > 0 ? { costMicroUsd: cost } : {}) })
    .catch((error: unknown) =>
      spending.logger.warn("could not add to the channel conversation's ledger", { error, conversationId }),
    );
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
 * logged, and the answer it paid for is still given. Under a daily ceiling, with reservations,
 * each call is held on the day's counter before it runs; without a ceiling no call waits on
 * that counter, one item every call of the platform shares, as agent turns' calls do not
 * (lambdas/agents/call-budget.ts).
 */
export function pricedModel(model: ModelClient, spending: ChannelSpending): ModelClient {
  const ceiling = spending.limits.maxDailyCostUsd;
  if (spending.reservations && ceiling !== undefined)
    return reservedModel(model, spending, spending.reservations, microUsd(ceiling));
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
      await countInLedger(spending, reply, cost);
      return reply;
    },
  };
}

/**
 * `model`, with each call's worst case reserved on the day's counter, against the daily
 * ceiling, before it runs, and settled to its real cost after (given back when it fails). A
 * refused reservation throws `DailyBudgetSpentError` with the ceiling's words: no model call
 * was made.
 */
function reservedModel(
  model: ModelClient,
  spending: ChannelSpending,
  day: DailyReservations,
  ceilingMicroUsd: number,
): ModelClient {
  return {
    async createMessage(params, options) {
      const price = spending.prices[params.model];
      const worst = worstCaseOf(params, price).microUsd;
      const today = utcDay(spending.clock.now());
      if (!(await day.reserve(today, worst, ceilingMicroUsd))) {
        throw new DailyBudgetSpentError(
          dailyCeilingReached(Number.MAX_SAFE_INTEGER, spending.limits, today) ??
            'the daily ceiling is reached',
        );
      }
      const settle = (delta: number) =>
        delta === 0
          ? Promise.resolve()
          : day
              .adjust(today, delta)
              .catch((error: unknown) =>
                spending.logger.warn('could not settle a daily spend reservation', { error, day: today }),
              );
      let reply: Awaited<ReturnType<ModelClient['createMessage']>>;
      try {
        reply = await model.createMessage(params, options);
      } catch (error) {
        await settle(-worst);
        throw error;
      }
      const cost = price ? costOfCall(usageOf(reply), price) : 0;
      await settle(cost - worst);
      await countInLedger(spending, reply, cost);
      return reply;
    },
  };
}
