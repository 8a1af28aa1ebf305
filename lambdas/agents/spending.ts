import type { Ledger } from '../kernel/model.ts';
import {
  type AgentLimits,
  type ConversationBudgetStore,
  type ConversationSpend,
  conversationLimitReached,
  type DailySpendStore,
  dailyCeilingReached,
} from './limits.ts';
import { type AgentLogger, type Clock, silentLogger } from './ports.ts';
import { type CallUsage, costOfCall, type ModelPrice, utcDay } from './pricing.ts';

/** What a turn's spending is measured with; every part optional (no limits: nothing is held). */
export interface SpendingDeps {
  /** The conversation's bounds (issue 12) and the money ones (issue 16). */
  limits?: AgentLimits;
  /** What the conversation spent so far. */
  conversationBudget?: ConversationBudgetStore;
  /** The platform's spend per UTC day, for `limits.maxDailyCostUsd`. */
  dailySpend?: DailySpendStore;
  /** The price of the model the turn calls; without one, calls cost nothing in the ledger. */
  price?: ModelPrice;
  clock: Clock;
  logger?: AgentLogger;
}

/**
 * One turn's spending: what the conversation and the platform had spent when the turn began
 * (read once, before the first model call), plus what this turn's calls added. `overLimit`
 * is asked before every model call, so a turn stops as soon as a bound is reached.
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
  ) {}

  /** Reads what was spent before this turn (the reads throw: the task is retried). */
  static async start(conversationId: string, deps: SpendingDeps): Promise<TurnSpending> {
    const { limits } = deps;
    const conversation = limits ? await deps.conversationBudget?.spend(conversationId) : undefined;
    let day: { day: string; spentMicroUsd: number } | undefined;
    if (limits?.maxDailyCostUsd !== undefined && deps.dailySpend) {
      const today = utcDay(deps.clock.now());
      day = { day: today, spentMicroUsd: await deps.dailySpend.spentOn(today) };
    }
    return new TurnSpending(deps, conversation, day);
  }

  /**
   * Counts one model call and returns its ledger delta (tokens and estimated cost). The
   * day's counter is added to here, as bookkeeping: a failed add is logged, not thrown.
   */
  async record(usage: CallUsage): Promise<Partial<Ledger>> {
    const cost = this.deps.price ? costOfCall(usage, this.deps.price) : 0;
    this.tokens += (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
    this.costMicroUsd += cost;
    if (cost > 0 && this.deps.dailySpend) {
      const today = utcDay(this.deps.clock.now());
      await this.deps.dailySpend
        .add(today, cost)
        .catch((error: unknown) =>
          (this.deps.logger ?? silentLogger).warn('could not add to the daily spend', { error, today }),
        );
    }
    return { ...usage, ...(cost > 0 ? { costMicroUsd: cost } : {}) };
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
