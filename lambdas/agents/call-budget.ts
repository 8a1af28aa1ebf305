import { randomUUID } from 'node:crypto';
import type { Ledger } from '../kernel/model.ts';
import { conversationLimitReached, dailyCeilingReached } from './limit-checks.ts';
import type { AgentLimits } from './limits.ts';
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
  /** The day's counter holds the worst case (under a ceiling); else it gets the real cost after the call. */
  readonly onDay: boolean;
  readonly onConversation: boolean;
}

export type Reserved = { granted: true; hold: Hold } | { granted: false; reason: string };

/**
 * Reserves, settles and releases model calls' worst cases against the day's ceiling and the
 * conversation's budget (reservations.ts). Each counter is reserved by its own conditional
 * update, and one granted while the other refused is given back: DynamoDB transactions are
 * not used (the sandbox's dynalite lacks them). Without a daily ceiling there is nothing to
 * hold on the day: its counter, one item every call of every conversation shares, gets each
 * call's real cost after the call, and no call waits on it before it runs. A refusal therefore may, for a moment, hold
 * what it gives back, which can only refuse another call early, never let one overrun. A
 * reservation that throws leaves nothing held; settling is bookkeeping, so its failures are
 * logged: an unsettled reservation expires (the conversation's) or ends with its day (the
 * day's).
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
    const onDayWanted = deps.day !== undefined && ceilingMicroUsd !== undefined;
    const { conversation } = deps;
    // Both counters at once: each update is atomic on its own, and whichever granted while the
    // other refused (or failed) is given back below. In sequence it would cost a round trip more.
    const [onDayResult, conversationResult] = await Promise.allSettled([
      onDayWanted ? (deps.day as DailyReservations).reserve(day, worst.microUsd, ceilingMicroUsd) : false,
      conversation?.store.reserve(
        conversation.id,
        { id, day, ...worst, expiresAtMs: now.getTime() + RESERVATION_LIFETIME_MS, onDay: onDayWanted },
        conversation.bounds,
      ),
    ]);
    const dayAnswer = onDayResult.status === 'fulfilled' ? onDayResult.value : undefined;
    const conversationAnswer =
      conversationResult.status === 'fulfilled' ? conversationResult.value : undefined;
    const hold: Hold = {
      id,
      day,
      worst,
      onDay: dayAnswer === true,
      onConversation: conversationAnswer?.granted === true,
    };
    const dayRefused = onDayWanted && dayAnswer === false;
    const conversationRefused = conversationAnswer?.granted === false;
    const failure = [onDayResult, conversationResult].find((r) => r.status === 'rejected');
    if (!failure && !dayRefused && !conversationRefused) return { granted: true, hold };
    await this.release(hold);
    if (failure) throw failure.reason;
    if (dayRefused) return { granted: false, reason: this.dayReason(day) };
    const held = conversationAnswer?.granted === false ? conversationAnswer.held : { tokens: 0, microUsd: 0 };
    return {
      granted: false,
      reason: this.conversationReason(held, conversation?.bounds ?? { maxTokens: 0 }),
    };
  }

  /**
   * Settles a call that ran: the reservation becomes its real cost. `ledger` (the call's usage)
   * goes to the conversation's ledger in the same write, when the reservation is held on the
   * conversation (`hold.onConversation`; else the caller writes it).
   */
  async settle(hold: Hold, actual: WorstCase, ledger?: Partial<Ledger>): Promise<void> {
    await this.close(
      hold,
      { tokens: actual.tokens - hold.worst.tokens, microUsd: actual.microUsd - hold.worst.microUsd },
      actual,
      ledger,
    );
  }

  /** Releases the reservation of a call that failed before it was billed (or was never made). */
  async release(hold: Hold): Promise<void> {
    await this.close(
      hold,
      { tokens: -hold.worst.tokens, microUsd: -hold.worst.microUsd },
      { tokens: 0, microUsd: 0 },
    );
  }

  private async close(
    hold: Hold,
    delta: WorstCase,
    actual: WorstCase,
    ledger?: Partial<Ledger>,
  ): Promise<void> {
    const { day, conversation } = this.deps;
    // Held on the day: the difference to the real cost; not held: the real cost itself.
    const onDay = hold.onDay ? delta.microUsd : actual.microUsd;
    try {
      const [open] = await Promise.all([
        hold.onConversation && conversation
          ? conversation.store.settle(conversation.id, hold.id, delta, ledger)
          : Promise.resolve(true),
        day && onDay !== 0 ? day.adjust(hold.day, onDay) : undefined,
      ]);
      if (!open && conversation) {
        // The sweep gave it back as expired (on the day too): the real cost is counted in full.
        this.log.warn('a reservation was settled after it expired', { reservation: hold.id });
        await Promise.all([
          conversation.store.add(conversation.id, actual, ledger),
          hold.onDay && day ? day.adjust(hold.day, hold.worst.microUsd) : undefined,
        ]);
      }
    } catch (error) {
      this.log.warn('could not settle a model call reservation', { error, reservation: hold.id });
    }
  }

  /**
   * Gives back the reservations of invocations that died mid-call (past their expiry), on
   * the conversation and on their day. Run before a turn's first call; failures are logged.
   */
  sweepExpired(): Promise<number> {
    return sweepExpiredReservations(this.deps);
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

/**
 * CallBudget's sweep of expired reservations, which needs no bounds: a turn runs it beside
 * the reads that give it the bounds (spending.ts).
 */
export async function sweepExpiredReservations(
  deps: Pick<CallBudgetDeps, 'day' | 'clock' | 'logger'> & {
    conversation?: Pick<NonNullable<CallBudgetDeps['conversation']>, 'id' | 'store'>;
  },
): Promise<number> {
  const { conversation, day } = deps;
  if (!conversation) return 0;
  const log = deps.logger ?? silentLogger;
  let released = 0;
  try {
    const expired = await conversation.store.expired(conversation.id, deps.clock.now().getTime());
    for (const reservation of expired) {
      const delta = { tokens: -reservation.tokens, microUsd: -reservation.microUsd };
      if (!(await conversation.store.settle(conversation.id, reservation.id, delta))) continue;
      if (day && reservation.onDay !== false && reservation.microUsd > 0)
        await day.adjust(reservation.day, -reservation.microUsd);
      released += 1;
      log.warn('gave back the reservation of a model call that never settled', { ...reservation });
    }
  } catch (error) {
    log.warn('could not give back expired reservations', { error });
  }
  return released;
}
