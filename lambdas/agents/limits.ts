import * as z from 'zod';
import { InvalidAgentLimitsError } from './errors.ts';

export {
  type ConversationBudgetStore,
  type ConversationSpend,
  continuesReason,
  conversationLimitReached,
  type DailySpendStore,
  dailyCeilingReached,
  isTransientModelFailure,
} from './limit-checks.ts';

/** The severity scale of escalations (low to critical), as workflows that escalate use it. */
export const EscalationSeverity = z.enum(['low', 'medium', 'high', 'critical']);
export type EscalationSeverity = z.infer<typeof EscalationSeverity>;

/**
 * What bounds an agent loop, held by code: per turn (tool rounds, a model call's
 * own time, the longest `retry-after` the client waits out) and per conversation (turns in a
 * row that ran out of their budget, tokens, wall-clock time). The stack validates the
 * configuration (`agentLimits` in infra/config-kernel.ts) and hands it to the functions as
 * `AGENT_LIMITS` JSON; the same schema reads it back.
 */
export const AgentLimits = z.strictObject({
  /** Turns in a row that end `continue` (time or tool budget spent) before the agent is stopped. @default 3 */
  maxConsecutiveContinues: z.number().int().min(1).max(100).default(3),
  /** Model tokens (input + output, from the ledger) one conversation may spend. @default 2000000 */
  maxConversationTokens: z.number().int().positive().default(2_000_000),
  /**
   * The estimated model cost (USD, priced with `modelPrices`) one conversation may spend; on
   * reaching it the agent stops as for the token budget. @default - no money budget
   */
  maxConversationCostUsd: z.number().positive().optional(),
  /**
   * The estimated model cost (USD) all conversations together may spend in one UTC day:
   * each model call's worst case is reserved on an atomic counter per day before it runs
   * (docs/security-budgets-and-branches.md), so concurrent calls overshoot it by at most one
   * call's worst case; once refused, a turn does not call the model and ends as a failure
   * saying so, which each workflow takes its stop path for (the bug investigation tells the
   * reporter and escalates to on call).
   * @default - no daily ceiling
   */
  maxDailyCostUsd: z.number().positive().optional(),
  /** Seconds from a conversation's start after which no agent turn runs. @default 604800 (7 days) */
  maxConversationSeconds: z.number().int().positive().default(604_800),
  /**
   * Model replies of one turn without a valid submission before the model is told to submit
   * now; two more without one and the turn fails. @default 8
   */
  maxToolRounds: z.number().int().min(1).max(100).default(8),
  /** Seconds one model request may take (each attempt of the client). @default 120 */
  modelCallTimeoutSeconds: z.number().int().positive().max(900).default(120),
  /**
   * The longest `retry-after` the model client waits out inside a turn; a longer one ends the
   * call as unavailable, and the state machine waits instead (`modelRetry`). @default 30
   */
  maxRetryAfterSeconds: z.number().int().min(0).max(600).default(30),
  /**
   * The state machine's retries of a turn whose model stayed unavailable (5xx, 529, 429,
   * timeouts) after the client's retries: first wait, attempts, growth. @default { intervalSeconds: 60, maxAttempts: 3, backoffRate: 2 }
   */
  modelRetry: z
    .strictObject({
      intervalSeconds: z.number().int().positive().default(60),
      maxAttempts: z.number().int().min(0).max(10).default(3),
      backoffRate: z.number().min(1).max(10).default(2),
    })
    .prefault({}),
  /** The severity of an escalation when the agent never assessed one (a failed first turn). @default 'medium' */
  escalationSeverity: EscalationSeverity.default('medium'),
});
export type AgentLimits = z.infer<typeof AgentLimits>;
export type AgentLimitsInput = z.input<typeof AgentLimits>;

export const DEFAULT_AGENT_LIMITS: AgentLimits = AgentLimits.parse({});

/** Reads `AGENT_LIMITS` (JSON); absent means the defaults. */
export function agentLimitsFrom(raw: string | undefined): AgentLimits {
  if (raw === undefined || raw.trim() === '') return DEFAULT_AGENT_LIMITS;
  try {
    return AgentLimits.parse(JSON.parse(raw));
  } catch (cause) {
    throw new InvalidAgentLimitsError({ cause });
  }
}
