import type { Ledger } from '../kernel/model.ts';
import { CallBudget, type Hold, type Reserved, sweepExpiredReservations } from './call-budget.ts';
import {
  type ConversationBudgetStore,
  type ConversationSpend,
  conversationLimitReached,
  type DailySpendStore,
  dailyCeilingReached,
} from './limit-checks.ts';
import type { AgentLimits } from './limits.ts';
import { type AgentLogger, type Clock, type MessageCreateParamsNonStreaming, silentLogger } from './ports.ts';
import { type CallUsage, costOfCall, type ModelPrice, microUsd, utcDay } from './pricing.ts';
import { type ConversationReservations, type DailyReservations, worstCaseOf } from './reservations.ts';

/** What a turn's spending is measured with; every part optional (no limits: nothing is held). */
export interface SpendingDeps {
  /** The conversation's bounds and the money ones. */
  limits?: AgentLimits;
  /** What the conversation spent so far. */
  conversationBudget?: ConversationBudgetStore;
  /** The platform's spend per UTC day, for `limits.maxDailyCostUsd`. */
  dailySpend?: DailySpendStore;
  /** The price of the model the turn calls; without one, calls cost nothing in the ledger. */
  price?: ModelPrice;
  /**
   * The counters model calls are reserved against before they run (reservations.ts): with
   * them, each call's worst case is held atomically, so concurrent turns cannot overrun a
   * ceiling; without them the turn's start-time reads are all that holds.
   */
  reservations?: { day?: DailyReservations; conversation?: ConversationReservations };
  /**
   * A tighter money and token ceiling of the workflow for this conversation (the issue
   * pipeline's), held with the conversation's own. @default - the conversation's limits only
   */
  conversationCeiling?: { maxCostUsd?: number; maxTokens?: number };
  clock: Clock;
  logger?: AgentLogger;
}

/**
 * One turn's spending: what the conversation and the platform had spent when the turn began
 * (read once, before the first model call), plus what this turn's calls added. `overLimit`
 * is asked before every model call, so a turn stops as soon as a bound is reached. That read
 * alone cannot hold a bound against other turns running at the same time: with reservation
 * stores, `reserve` holds each call's worst case atomically before it runs (call-budget.ts).
 */
export class TurnSpending {
  private tokens = 0;
  private costMicroUsd = 0;

  private constructor(
    private readonly deps: SpendingDeps,
    /** The conversation's spend at the turn's start; undefined without limits or a store. */
    readonly conversation: ConversationSpend | undefined,
    /** The day's spend at the turn's start, and that day; undefined without a daily ceiling. */
    private readonly day: { day: string; spentMicroUsd: number } | undefined,
    private readonly budget: CallBudget | undefined,
  ) {}

  /**
   * Reads what was spent before this turn (the reads throw: the task is retried), and gives
   * back the conversation's reservations left by an invocation that died mid-call, before this
   * turn reserves. The three are independent: they go out together, one round trip.
   */
  static async start(conversationId: string, deps: SpendingDeps): Promise<TurnSpending> {
    const { limits, reservations } = deps;
    const today = utcDay(deps.clock.now());
    const dailySpend = limits?.maxDailyCostUsd === undefined ? undefined : deps.dailySpend;
    const [conversation, spentOnDay] = await Promise.all([
      limits ? deps.conversationBudget?.spend(conversationId) : undefined,
      dailySpend?.spentOn(today),
      limits && reservations?.conversation
        ? sweepExpiredReservations({
            conversation: { id: conversationId, store: reservations.conversation },
            ...(reservations.day ? { day: reservations.day } : {}),
            clock: deps.clock,
            ...(deps.logger ? { logger: deps.logger } : {}),
          })
        : undefined,
    ]);
    const day = spentOnDay === undefined ? undefined : { day: today, spentMicroUsd: spentOnDay };
    return new TurnSpending(deps, conversation, day, callBudgetOf(conversationId, conversation, deps));
  }

  /**
   * Reserves the worst case of `request` against the day's ceiling and the conversation's
   * budget; a refusal carries the reason in words for people. Without reservation stores,
   * always granted (with no hold).
   */
  async reserve(
    request: MessageCreateParamsNonStreaming,
  ): Promise<Reserved | { granted: true; hold?: undefined }> {
    if (!this.budget) return { granted: true };
    return this.budget.reserve(worstCaseOf(request, this.deps.price));
  }

  /** Gives back the reservation of a call that failed. */
  async release(hold: Hold | undefined): Promise<void> {
    if (hold) await this.budget?.release(hold);
  }

  /**
   * Counts one model call: its ledger delta (tokens and estimated cost) at once, and `recorded`,
   * which adds the cost to the day's counter (or settles the call's reservation into it). A
   * reservation held on the conversation's record is settled in the same write that adds the
   * delta to the conversation's ledger (`ledgerRecorded`); otherwise the caller writes the
   * delta beside `recorded`. Without a reservation the day's add is bookkeeping: a failure is
   * logged, and `recorded` resolves all the same.
   */
  record(
    usage: CallUsage,
    hold?: Hold,
  ): { delta: Partial<Ledger>; recorded: Promise<void>; ledgerRecorded: boolean } {
    const cost = this.deps.price ? costOfCall(usage, this.deps.price) : 0;
    const tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
    this.tokens += tokens;
    this.costMicroUsd += cost;
    const delta = { ...usage, ...(cost > 0 ? { costMicroUsd: cost } : {}) };
    if (hold && this.budget) {
      // The reservation becomes the real cost, on the day's counter and the conversation's.
      const ledgerRecorded = hold.onConversation;
      return {
        delta,
        recorded: this.budget.settle(hold, { tokens, microUsd: cost }, ledgerRecorded ? delta : undefined),
        ledgerRecorded,
      };
    }
    if (cost > 0 && this.deps.dailySpend) {
      const today = utcDay(this.deps.clock.now());
      const recorded = this.deps.dailySpend
        .add(today, cost)
        .catch((error: unknown) =>
          (this.deps.logger ?? silentLogger).warn('could not add to the daily spend', { error, today }),
        );
      return { delta, recorded, ledgerRecorded: false };
    }
    return { delta, recorded: Promise.resolve(), ledgerRecorded: false };
  }

  /** Why no further model call may run, in words for people; undefined when it may. */
  overLimit(): string | undefined {
    const { limits } = this.deps;
    if (!limits) return undefined;
    if (this.day) {
      const reached = dailyCeilingReached(this.day.spentMicroUsd + this.costMicroUsd, limits, this.day.day);
      if (reached !== undefined) return reached;
    }
    if (!this.conversation) return undefined;
    return conversationLimitReached(
      {
        ...this.conversation,
        tokens: this.conversation.tokens + this.tokens,
        costMicroUsd: this.conversation.costMicroUsd + this.costMicroUsd,
      },
      limits,
      this.deps.clock.now().getTime(),
    );
  }
}

/** The reservations of a turn's calls, when the deps have somewhere to hold them. */
function callBudgetOf(
  conversationId: string,
  spend: ConversationSpend | undefined,
  deps: SpendingDeps,
): CallBudget | undefined {
  const { limits, reservations } = deps;
  if (!limits || !reservations || (!reservations.day && !reservations.conversation)) return undefined;
  const ceiling = deps.conversationCeiling;
  const costs = [limits.maxConversationCostUsd, ceiling?.maxCostUsd].filter((c) => c !== undefined);
  const maxCost = costs.length === 0 ? undefined : Math.min(...costs);
  const conversation =
    reservations.conversation && spend
      ? {
          id: conversationId,
          store: reservations.conversation,
          bounds: {
            maxTokens: Math.min(limits.maxConversationTokens, ceiling?.maxTokens ?? Number.POSITIVE_INFINITY),
            ...(maxCost === undefined ? {} : { maxMicroUsd: microUsd(maxCost) }),
            seed: { tokens: spend.tokens, microUsd: spend.costMicroUsd },
          },
        }
      : undefined;
  return new CallBudget({
    limits: maxCost === undefined ? limits : { ...limits, maxConversationCostUsd: maxCost },
    ...(reservations.day ? { day: reservations.day } : {}),
    ...(conversation ? { conversation } : {}),
    clock: deps.clock,
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
}
