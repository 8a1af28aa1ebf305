import { randomUUID } from 'node:crypto';
import { type AgentLimits, conversationLimitReached, dailyCeilingReached } from './limits.ts';
import { type AgentLogger, type Clock, silentLogger } from './ports.ts';
import { utcDay } from './pricing.ts';
import {
  type ConversationBounds,
  type ConversationReservations,
  type DailyReservations,
  RESERVATION_LIFETIME_MS,
  type WorstCase,
} from './reservations.ts';

/** What the reservations of one conversation's (or one channel job's) model calls are made against. */
export interface CallBudgetDeps {
  /** The bounds, for the ceiling and for the words of a refusal. */
  limits: AgentLimits;
  /** The day's counter; without it the day is not held. */
  day?: DailyReservations;
  /** The conversation's counters and the bounds they are held to; without it only the day is held. */
  conversation?: { id: string; store: ConversationReservations; bounds: ConversationBounds };
  clock: Clock;
  logger?: AgentLogger;
  newId?: () => string;
}

/** A granted reservation, to settle after the call or release when it failed. */
export interface Hold {
  readonly id: string;
  readonly day: string;
  readonly worst: WorstCase;
  readonly onDay: boolean;
  readonly onConversation: boolean;
}

export type Reserved = { granted: true; hold: Hold } | { granted: false; reason: string };

/**
 * Reserves, settles and releases model calls' worst cases against the day's ceiling and the
 * conversation's budget (reservations.ts). The day is reserved first and given back if the
 * conversation refuses: DynamoDB transactions are not used (the sandbox's dynalite lacks
 * them), and the two counters are consistent once both updates land. A reservation that
 * throws leaves nothing held; settling is bookkeeping, so its failures are logged: an
 * unsettled reservation expires (the conversation's) or ends with its day (the day's).
 */
export class CallBudget {
  constructor(private readonly deps: CallBudgetDeps) {}

  private get log(): AgentLogger {
    return this.deps.logger ?? silentLogger;
  }

  async reserve(worst: WorstCase): Promise<Reserved> {
    const { deps } = this;
    const now = deps.clock.now();
    const day = utcDay(now);
    const id = (deps.newId ?? randomUUID)();
    const ceiling = deps.limits.maxDailyCostUsd;
    const ceilingMicroUsd = ceiling === undefined ? undefined : Math.round(ceiling * 1_000_000);
    let onDay = false;
    if (deps.day && (worst.microUsd > 0 || ceilingMicroUsd !== undefined)) {
      if (!(await deps.day.reserve(day, worst.microUsd, ceilingMicroUsd))) {
        return { granted: false, reason: this.dayReason(day) };
      }
      onDay = true;
    }
    if (!deps.conversation) return { granted: true, hold: { id, day, worst, onDay, onConversation: false } };
    const { store, bounds } = deps.conversation;
    let answer: Awaited<ReturnType<ConversationReservations['reserve']>>;
    try {
      answer = await store.reserve(
        deps.conversation.id,
        { id, day, ...worst, expiresAtMs: now.getTime() + RESERVATION_LIFETIME_MS },
        bounds,
      );
    } catch (error) {
      if (onDay) await this.giveBackDay(day, worst.microUsd);
      throw error;
    }
    if (!answer.granted) {
      if (onDay) await this.giveBackDay(day, worst.microUsd);
      return { granted: false, reason: this.conversationReason(answer.held, bounds) };
    }
    return { granted: true, hold: { id, day, worst, onDay, onConversation: true } };
  }

  /** Settles a call that ran: the reservation becomes its real cost. */
  async settle(hold: Hold, actual: WorstCase): Promise<void> {
    await this.close(
      hold,
      { tokens: actual.tokens - hold.worst.tokens, microUsd: actual.microUsd - hold.worst.microUsd },
      actual,
    );
  }

  /** Releases the reservation of a call that failed before it was billed. */
  async release(hold: Hold): Promise<void> {
    await this.close(
      hold,
      { tokens: -hold.worst.tokens, microUsd: -hold.worst.microUsd },
      { tokens: 0, microUsd: 0 },
    );
  }

  private async close(hold: Hold, delta: WorstCase, actual: WorstCase): Promise<void> {
    const { deps } = this;
    let dayDelta = delta.microUsd;
    try {
      if (hold.onConversation && deps.conversation) {
        const open = await deps.conversation.store.settle(deps.conversation.id, hold.id, delta);
        if (!open) {
          // Already given back as expired: the real cost is counted in full instead.
          this.log.warn('a reservation was settled after it expired', { reservation: hold.id });
          await deps.conversation.store.add(deps.conversation.id, actual);
          dayDelta = actual.microUsd;
        }
      }
      if (hold.onDay && deps.day && dayDelta !== 0) await deps.day.adjust(hold.day, dayDelta);
    } catch (error) {
      this.log.warn('could not settle a model call reservation', { error, reservation: hold.id });
    }
  }

  /**
   * Gives back the reservations of invocations that died mid-call (past their expiry), on
   * the conversation and on their day. Run before a turn's first call; failures are logged.
   */
  async sweepExpired(): Promise<number> {
    const { conversation, day } = this.deps;
    if (!conversation) return 0;
    let released = 0;
    try {
      const expired = await conversation.store.expired(conversation.id, this.deps.clock.now().getTime());
      for (const reservation of expired) {
        const delta = { tokens: -reservation.tokens, microUsd: -reservation.microUsd };
        if (!(await conversation.store.settle(conversation.id, reservation.id, delta))) continue;
        if (day && reservation.microUsd > 0) await day.adjust(reservation.day, -reservation.microUsd);
        released += 1;
        this.log.warn('gave back the reservation of a model call that never settled', { ...reservation });
      }
    } catch (error) {
      this.log.warn('could not give back expired reservations', { error });
    }
    return released;
  }

  private async giveBackDay(day: string, microUsd: number): Promise<void> {
    if (microUsd === 0) return;
    await this.deps.day
      ?.adjust(day, -microUsd)
      .catch((error: unknown) => this.log.warn('could not give back a day reservation', { error, day }));
  }

  private dayReason(day: string): string {
    const { limits } = this.deps;
    return (
      dailyCeilingReached(Number.MAX_SAFE_INTEGER, limits, day) ??
      `the platform reached its spending ceiling for today (${day}, UTC)`
    );
  }

  private conversationReason(held: WorstCase, bounds: ConversationBounds): string {
    const { limits, clock } = this.deps;
    const now = clock.now();
    const reason = conversationLimitReached(
      {
        createdAt: now.toISOString(),
        tokens: held.tokens,
        costMicroUsd: held.microUsd,
        consecutiveContinues: 0,
      },
      {
        ...limits,
        maxConversationTokens: bounds.maxTokens,
        ...(bounds.maxMicroUsd === undefined
          ? {}
          : { maxConversationCostUsd: bounds.maxMicroUsd / 1_000_000 }),
      },
      now.getTime(),
    );
    return reason ?? `it used its budget of model tokens or estimated model cost`;
  }
}
