import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { ModelCallError } from '../../lambdas/agents/errors.ts';
import { AgentLimits } from '../../lambdas/agents/limits.ts';
import type { MessageCreateParamsNonStreaming, ModelClient } from '../../lambdas/agents/ports.ts';
import { silentLogger } from '../../lambdas/agents/ports.ts';
import type { ModelPrice } from '../../lambdas/agents/pricing.ts';
import { worstCaseOf } from '../../lambdas/agents/reservations.ts';
import { DailyBudgetSpentError } from '../../lambdas/workflows/channel-conversations/errors.ts';
import { pricedModel } from '../../lambdas/workflows/channel-conversations/spending.ts';
import { startDynalite } from '../support/dynalite.ts';
import { until } from '../support/eventually.ts';

/** A model's answer, as the model client returns it. */
type Message = Awaited<ReturnType<ModelClient['createMessage']>>;

/**
 * Channel answers under the daily ceiling with reservations: each call's worst case is held on
 * the day's counter before it runs, so answers racing in many channels cannot overrun it.
 * Without a ceiling nothing is held: no call waits on the day's counter, and each call's real
 * cost is added after it, as agent turns' calls do.
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

const spending = (day: DynamoDailySpend, ceilingUsd: number | undefined, now = NOON) => ({
  limits: AgentLimits.parse(ceilingUsd === undefined ? {} : { maxDailyCostUsd: ceilingUsd }),
  dailySpend: day,
  reservations: day,
  prices: { [MODEL]: PRICE },
  clock: { now: () => now },
  logger: silentLogger,
});

/**
 * The day's counter, telling `log` of each update it is sent (`reserve`, `adjust`, `add`), with
 * the model's calls logged beside them (`call`): the order a call and its updates happened in.
 */
function loggedCounter(day: DynamoDailySpend, log: string[]): DynamoDailySpend {
  return Object.assign(Object.create(day) as DynamoDailySpend, {
    reserve: (...args: Parameters<DynamoDailySpend['reserve']>) => {
      log.push('reserve');
      return day.reserve(...args);
    },
    adjust: (...args: Parameters<DynamoDailySpend['adjust']>) => {
      log.push('adjust');
      return day.adjust(...args);
    },
    add: (...args: Parameters<DynamoDailySpend['add']>) => {
      log.push('add');
      return day.add(...args);
    },
  });
}

/** `heldModel`, logging each call in `log` as it starts. */
function loggedModel(log: string[], fail = false): ModelClient {
  const inner = heldModel(undefined, fail);
  return {
    createMessage(params, options) {
      log.push('call');
      return inner.createMessage(params, options);
    },
  };
}

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

describe('the day held only under a ceiling', () => {
  const DAY = '2015-11-24';
  const NEXT_NOON = new Date(`${DAY}T12:00:00Z`);

  it("reserves each call's worst case before it runs under a ceiling, and settles it to the real cost after", async () => {
    const counter = new DynamoDailySpend({ client: db.client, tableName: db.tableName });
    const log: string[] = [];
    const before = await counter.spentOn(DAY);
    const model = pricedModel(loggedModel(log), spending(loggedCounter(counter, log), 100, NEXT_NOON));

    await model.createMessage(REQUEST);

    expect(log).toEqual(['reserve', 'call', 'adjust']);
    expect(await counter.spentOn(DAY)).toBe(before + 9_000);
  });

  it("makes no call wait on the day's counter without a ceiling: the real cost is added after the call", async () => {
    const counter = new DynamoDailySpend({ client: db.client, tableName: db.tableName });
    const log: string[] = [];
    const before = await counter.spentOn(DAY);
    const model = pricedModel(loggedModel(log), spending(loggedCounter(counter, log), undefined, NEXT_NOON));

    await model.createMessage(REQUEST);

    expect(log).toEqual(['call', 'add']);
    expect(await counter.spentOn(DAY)).toBe(before + 9_000);
  });

  it('adds nothing to the day for a call that failed without a ceiling', async () => {
    const counter = new DynamoDailySpend({ client: db.client, tableName: db.tableName });
    const log: string[] = [];
    const before = await counter.spentOn(DAY);
    const model = pricedModel(
      loggedModel(log, true),
      spending(loggedCounter(counter, log), undefined, NEXT_NOON),
    );

    await expect(model.createMessage(REQUEST)).rejects.toThrow(ModelCallError);

    expect(log).toEqual(['call']);
    expect(await counter.spentOn(DAY)).toBe(before);
  });
});
