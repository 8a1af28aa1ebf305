import type { AgentLimits, ConversationBudgetStore, DailySpendStore } from '../../../agents/limits.ts';
import { usageOf } from '../../../agents/model-reply.ts';
import type {
  AgentLogger,
  LedgerWriter,
  MessageCreateParamsNonStreaming,
  ModelClient,
} from '../../../agents/ports.ts';
import type { ModelPrice } from '../../../agents/pricing.ts';
import type { ConversationReservations, DailyReservations } from '../../../agents/reservations.ts';
import { type SpendingDeps, TurnSpending } from '../../../agents/spending.ts';
import { type TemplateAdvisor, TemplateReviewCache } from '../../../log-analysis/index.ts';
import type { TelemetryConfig } from './config.ts';

/**
 * The configured model as the log template miner's advisor (query_logs, when
 * `logTemplateReview.enabled`): one Messages API call per review, its `max_tokens` set here from
 * the configuration. Each call is spent the way an agent turn's calls are (`TurnSpending`):
 * its worst case (the prompt's bytes and `max_tokens`, at the dearest rates of `MODEL_PRICE`)
 * is reserved on the day's counter, against `agentLimits.maxDailyCostUsd`, and on the
 * conversation's record, against its token and money budgets, before the call; after it the
 * reservation is settled to the real cost (given back when the call fails), and the tokens and
 * cost are added to the conversation's ledger. A refused reservation means no call (the query
 * goes on with the miner's templates), so concurrent queries cannot overrun either ceiling by
 * more than one call's worst case. The review cache lives as long as the function instance, so
 * a template is asked about once however many queries show it.
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
  /**
   * The platform's spend per UTC day (the agent turns' counter, reserved on before each call)
   * and the limits it and the conversation are held to. @default - not counted, not held
   */
  daily?: { store: DailySpendStore & DailyReservations; limits: AgentLimits; now?: () => Date };
  /**
   * The conversation's spend and its reservations (the agent turns' own), for its token and
   * money budgets; needs `daily` for the limits. @default - only the day is held
   */
  conversation?: { budget: ConversationBudgetStore; reservations: ConversationReservations };
  logger?: AgentLogger;
}

/** A budget (the day's ceiling or the conversation's) refused the review's reservation: no call was made. */
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
      const spending = await TurnSpending.start(conversationId, spendingDeps(options));
      const over = spending.overLimit();
      if (over !== undefined) throw new ReviewBudgetSpentError(over);
      const request: MessageCreateParamsNonStreaming = {
        model: options.modelId,
        max_tokens: options.config.maxOutputTokens,
        messages: [{ role: 'user', content: prompt }],
      };
      const reserved = await spending.reserve(request);
      if (!reserved.granted) throw new ReviewBudgetSpentError(reserved.reason);
      let reply: Awaited<ReturnType<ModelClient['createMessage']>>;
      try {
        reply = await (await model()).createMessage(request);
      } catch (error) {
        await spending.release(reserved.hold);
        throw error;
      }
      const usage = usageOf(reply);
      const { delta, recorded, ledgerRecorded } = spending.record(usage, reserved.hold);
      await Promise.all([recorded, ledgerRecorded ? undefined : options.ledger(conversationId, delta)]);
      const text = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      return {
        text,
        usage: { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 },
      };
    },
  };
}

/** The agent turns' spending deps for one review call: no limits without `daily` (nothing held). */
function spendingDeps(options: ModelTemplateAdvisorOptions): SpendingDeps {
  const { daily, conversation, price, logger } = options;
  const clock = { now: daily?.now ?? (() => new Date()) };
  const base = { clock, ...(price ? { price } : {}), ...(logger ? { logger } : {}) };
  if (!daily) return base;
  return {
    ...base,
    limits: daily.limits,
    dailySpend: daily.store,
    ...(conversation ? { conversationBudget: conversation.budget } : {}),
    reservations: {
      day: daily.store,
      ...(conversation ? { conversation: conversation.reservations } : {}),
    },
  };
}
