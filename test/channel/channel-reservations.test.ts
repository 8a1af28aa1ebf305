import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { ModelCallError } from '../../lambdas/agents/errors.ts';
import { AgentLimits } from '../../lambdas/agents/limits.ts';
import type { Message, MessageCreateParamsNonStreaming, ModelClient } from '../../lambdas/agents/ports.ts';
import { silentLogger } from '../../lambdas/agents/ports.ts';
import type { ModelPrice } from '../../lambdas/agents/pricing.ts';
import { worstCaseOf } from '../../lambdas/agents/reservations.ts';
import { DailyBudgetSpentError } from '../../lambdas/workflows/channel-conversations/errors.ts';
import { pricedModel } from '../../lambdas/workflows/channel-conversations/spending.ts';
import { startDynalite } from '../support/dynalite.ts';
import { until } from '../support/eventually.ts';

/**
 * Channel answers under the daily ceiling with reservations: each call's worst case is held on
 * the day's counter before it runs, so answers racing in many channels cannot overrun it.
 */

const MODEL = 'claude-answer';
const PRICE: ModelPrice = {
  inputPerMillion: 2,
  outputPerMillion: 10,
  cacheWritePerMillion: 2.5,
  cacheReadPerMillion: 0.2,
};
const REQUEST: MessageCreateParamsNonStreaming = {
  model: MODEL,
  max_tokens: 1_000,
  messages: [{ role: 'user', content: 'what does the checkout service do?' }],
};
const NOON = new Date('2015-11-23T12:00:00Z');

let db: Awaited<ReturnType<typeof startDynalite>>;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(() => db.close());

/**
 * A model billing 500 in and 800 out ($0.009 a call) that answers once `open()` holds (so calls
 * overlap as long as a test needs), counting the calls it received.
 */
function heldModel(open: () => boolean = () => true, fail = false): ModelClient & { calls: number } {
  return {
    calls: 0,
    async createMessage(params) {
      this.calls += 1;
      await until(open, 'the held calls to be released');
      if (fail) throw new ModelCallError('scripted failure', { status: 400 }, { cause: undefined });
      return {
        id: 'msg',
        type: 'message',
        role: 'assistant',
        model: params.model,
        content: [{ type: 'text', text: 'it takes payments', citations: null }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 500, output_tokens: 800 },
      } as unknown as Message;
    },
  };
}

const spending = (day: DynamoDailySpend, ceilingUsd: number) => ({
  limits: AgentLimits.parse({ maxDailyCostUsd: ceilingUsd }),
  dailySpend: day,
  reservations: day,
  prices: { [MODEL]: PRICE },
  clock: { now: () => NOON },
  logger: silentLogger,
});

describe('channel answers with reservations', () => {
  it('let twenty racing answers spend at most the ceiling plus one worst case; the others are refused with its words', async () => {
    const day = new DynamoDailySpend({ client: db.client, tableName: db.tableName });
    let refusals = 0;
    // Every call let through stays open until all twenty were let through or refused: they all race.
    const inner = heldModel(() => inner.calls + refusals === 20);
    const model = pricedModel(inner, spending(day, 0.05));

    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        model.createMessage(REQUEST).catch((error: unknown) => {
          refusals += 1;
          throw error;
        }),
      ),
    );

    const answered = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    const worst = worstCaseOf(REQUEST, PRICE).microUsd;
    const spent = await day.spentOn('2015-11-23');
    expect(spent).toBe(answered * 9_000);
    expect(spent).toBeLessThanOrEqual(50_000 + worst);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error).toBeInstanceOf(DailyBudgetSpentError);
      expect((error as DailyBudgetSpentError).reason).toBe(
        'the platform reached its spending ceiling of $0.05 of estimated model cost for today (2015-11-23, UTC); it resets at midnight UTC',
      );
    }
  });

  it('gives the reservation back when the model call fails', async () => {
    const day = new DynamoDailySpend({ client: db.client, tableName: db.tableName });
    const before = await day.spentOn('2015-11-23');
    const model = pricedModel(heldModel(undefined, true), spending(day, 100));

    await expect(model.createMessage(REQUEST)).rejects.toThrow(ModelCallError);

    expect(await day.spentOn('2015-11-23')).toBe(before);
  });
});
