import { formatUsd, microUsd } from '../shared/money.ts';
import type { ModelCallError } from './errors.ts';
import type { AgentLimits } from './limits.ts';

/**
 * The limits held against a conversation and the platform's day, in code: what a turn checks
 * before each model call. Apart from the limits' schema (limits.ts), which reads the
 * configuration once per instance: a turn's code needs the checks, not the schema, at load.
 */

/** What the conversation has spent so far, read before a turn (see `ConversationBudgetStore`). */
export interface ConversationSpend {
  /** ISO time the conversation started. */
  createdAt: string;
  /** Model tokens so far (input + output). */
  tokens: number;
  /** The model calls' estimated cost so far, in micro-dollars. */
  costMicroUsd: number;
  /** Turns that ended `continue` since the last turn that did not. */
  consecutiveContinues: number;
}

/** The conversation's side of the budget: what it spent, and how each turn ended. */
export interface ConversationBudgetStore {
  spend(conversationId: string): Promise<ConversationSpend | undefined>;
  /** Records how turn `turn` ended; idempotent per turn (a retried turn counts once). */
  recordTurnEnd(conversationId: string, turn: number, continued: boolean): Promise<void>;
}

/** Why the conversation may not run another turn, in words for the people in it; undefined when it may. */
export function conversationLimitReached(
  spend: ConversationSpend,
  limits: AgentLimits,
  nowMs: number,
): string | undefined {
  if (spend.tokens >= limits.maxConversationTokens) {
    return `it used its budget of ${limits.maxConversationTokens.toLocaleString('en-US')} model tokens`;
  }
  if (
    limits.maxConversationCostUsd !== undefined &&
    spend.costMicroUsd >= microUsd(limits.maxConversationCostUsd)
  ) {
    return `it used its budget of ${formatUsd(microUsd(limits.maxConversationCostUsd))} of estimated model cost`;
  }
  const ageSeconds = (nowMs - Date.parse(spend.createdAt)) / 1000;
  if (ageSeconds >= limits.maxConversationSeconds) {
    return `it reached its time limit of ${describeSeconds(limits.maxConversationSeconds)}`;
  }
  return undefined;
}

/**
 * The platform's spend per UTC day, across every conversation: an atomic counter per day,
 * read before each agent turn; with reservations (reservations.ts) each call's worst case is
 * held on it before the call and settled after.
 */
export interface DailySpendStore {
  /** Micro-dollars spent on `day` (`YYYY-MM-DD`, UTC) so far; 0 when nothing was. */
  spentOn(day: string): Promise<number>;
  /** Adds a call's cost to `day`'s counter. */
  add(day: string, costMicroUsd: number): Promise<void>;
}

/** Why no turn may call the model today, in words for people; undefined when it may. */
export function dailyCeilingReached(
  spentMicroUsd: number,
  limits: AgentLimits,
  day: string,
): string | undefined {
  if (limits.maxDailyCostUsd === undefined) return undefined;
  const ceiling = microUsd(limits.maxDailyCostUsd);
  if (spentMicroUsd < ceiling) return undefined;
  return `the platform reached its spending ceiling of ${formatUsd(ceiling)} of estimated model cost for today (${day}, UTC); it resets at midnight UTC`;
}

/** The reason given when a turn would be the `max`-th in a row to run out of its budget. */
export function continuesReason(max: number): string {
  return `it ran out of its per-turn budget ${max} turns in a row without reaching a result`;
}

function describeSeconds(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

/** Whether a model failure is worth retrying later: the service, not the request, was the problem. */
export function isTransientModelFailure(details: ModelCallError['details']): boolean {
  if (details.aborted || details.doNotRetry) return false;
  if (details.unreachable || details.retryAfterSeconds !== undefined) return true;
  const status = details.status;
  return status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);
}
