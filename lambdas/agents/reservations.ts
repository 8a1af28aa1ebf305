import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { Ledger } from '../kernel/model.ts';
import type { ModelPrice } from './pricing.ts';

/**
 * Budgets held by reservation (docs/security-budgets-and-branches.md). Before each model
 * call its worst-case cost is reserved with one atomic conditional update per counter (the
 * day's, then the conversation's); after the call the difference to the real cost is given
 * back, and a failed call gives back all of it. A reservation is granted only while the
 * counter, reservations included, is below its ceiling, so however many calls race, only the
 * last one granted can carry the counter past it: the overshoot is at most one call's worst
 * case. Reading a spend and deciding on it later (the old way) let every racing turn see the
 * same spend and all go ahead.
 */

/**
 * Tokens allowed on top of the request's own text for what the API adds to a prompt (the
 * tool-use system prompt is a few hundred tokens).
 */
const PROMPT_OVERHEAD_TOKENS = 1_000;

/**
 * How long a reservation may stay open. No Lambda invocation lives past 15 minutes, so a
 * reservation older than that belongs to one that died mid-call, and is given back.
 */
export const RESERVATION_LIFETIME_MS = 15 * 60_000;

/** A model call's worst case: every token it may bill, and their cost at the dearest rates. */
export interface WorstCase {
  tokens: number;
  microUsd: number;
}

/**
 * The worst case of one request: input tokens bounded by the UTF-8 size of what the request
 * sends (a token covers at least one byte) plus `PROMPT_OVERHEAD_TOKENS`, priced at the dearer
 * of the input and cache-write rates, and `max_tokens` of output; with a long-prompt band, the
 * dearer band. Without a price the cost is 0 and only tokens are held.
 */
export function worstCaseOf(
  request: Pick<MessageCreateParamsNonStreaming, 'max_tokens' | 'messages' | 'system' | 'tools'>,
  price: ModelPrice | undefined,
): WorstCase {
  const sent = JSON.stringify([request.system ?? '', request.tools ?? [], request.messages]);
  const input = Buffer.byteLength(sent, 'utf8') + PROMPT_OVERHEAD_TOKENS;
  const output = request.max_tokens;
  if (price === undefined) return { tokens: input + output, microUsd: 0 };
  const bands = price.longPrompt ? [price, price.longPrompt] : [price];
  const inputRate = Math.max(...bands.map((b) => Math.max(b.inputPerMillion, b.cacheWritePerMillion)));
  const outputRate = Math.max(...bands.map((b) => b.outputPerMillion));
  // USD per million tokens is micro-dollars per token; rounded up, never under.
  return { tokens: input + output, microUsd: Math.ceil(input * inputRate + output * outputRate) };
}

/** An open reservation on a conversation, as its record keeps it until settled. */
export interface OpenReservation {
  id: string;
  /** The UTC day whose counter holds the same amount. */
  day: string;
  microUsd: number;
  tokens: number;
  /** Epoch ms after which it is taken for the reservation of a dead invocation. */
  expiresAtMs: number;
  /**
   * Whether the day's counter holds the same amount: only under a daily ceiling (without one
   * the day counts each call's real cost after the call). @default true: a record written
   * without the field was held on the day
   */
  onDay?: boolean | undefined;
}

/** The day's counter (settled spend plus open reservations), shared by every conversation. */
export interface DailyReservations {
  /**
   * Adds `microUsd` to `day`'s counter if it is below `ceilingMicroUsd` (always without one),
   * in one conditional update; false when refused (nothing changed).
   */
  reserve(day: string, microUsd: number, ceilingMicroUsd: number | undefined): Promise<boolean>;
  /** Adds `deltaMicroUsd` (negative to give back) to `day`'s counter, unconditionally. */
  adjust(day: string, deltaMicroUsd: number): Promise<void>;
}

/** What one conversation may hold: tokens always, money when it has a money budget. */
export interface ConversationBounds {
  maxTokens: number;
  maxMicroUsd?: number;
  /**
   * Where the counters start when no call of the conversation was reserved yet: what its
   * ledger shows it spent (read at the turn's start). @default nothing spent
   */
  seed?: ConversationHeld;
}

/** The conversation's counters (settled plus open), as a refused reservation found them. */
export interface ConversationHeld {
  tokens: number;
  microUsd: number;
}

export type ConversationReservation = { granted: true } | { granted: false; held: ConversationHeld };

/** The conversation's counters and its open reservations, on its own record. */
export interface ConversationReservations {
  /**
   * Adds the reservation to the conversation's counters and records it open, if both counters
   * are below their bounds, in one conditional update.
   */
  reserve(
    conversationId: string,
    reservation: OpenReservation,
    bounds: ConversationBounds,
  ): Promise<ConversationReservation>;
  /**
   * Closes reservation `id`, adding `delta` (real cost minus reserved; minus the reservation
   * to give it back) to the counters, and `ledger` (the call's usage) to the conversation's
   * ledger in the same write. False when it was no longer open (nothing changed).
   */
  settle(
    conversationId: string,
    id: string,
    delta: ConversationHeld,
    ledger?: Partial<Ledger>,
  ): Promise<boolean>;
  /**
   * Adds to the counters without a reservation (the real cost of a call whose reservation
   * expired), and `ledger` to the conversation's ledger in the same write.
   */
  add(conversationId: string, amount: ConversationHeld, ledger?: Partial<Ledger>): Promise<void>;
  /** Open reservations past their expiry. */
  expired(conversationId: string, nowMs: number): Promise<OpenReservation[]>;
}
