import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DynamoConversationBudget,
  DynamoConversationReservations,
} from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { agentLimitsFrom } from '../../lambdas/agents/limits.ts';
import { costOfCall, utcDay } from '../../lambdas/agents/pricing.ts';
import { bugConversation } from '../support/conversations.ts';
import { httpError } from '../support/scripted-model.ts';
import { PRICE, templateReviewFixture, USAGE } from './template-review-fixture.ts';

/**
 * The review's model call is spent the way an agent turn's are: its worst case (the prompt's
 * bytes and max_tokens at the model's dearest rates) is reserved on the day's counter and the
 * conversation's record before the call, settled to the real cost after, given back on failure.
 * Here two queries race for one budget and a call fails; the review switched on and off, and its
 * ledger, are in telemetry-template-review.test.ts.
 */

const f = templateReviewFixture();

describe('query_logs template review under budgets held by reservation', () => {
  const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
  const tokens = USAGE.input_tokens + USAGE.output_tokens;
  const daily = () => new DynamoDailySpend({ client: new DynamoDBClient({}), tableName: f.h.tableName });
  const conversationStores = () => ({
    budget: new DynamoConversationBudget({ client: new DynamoDBClient({}), tableName: f.h.tableName }),
    reservations: new DynamoConversationReservations({
      client: new DynamoDBClient({}),
      tableName: f.h.tableName,
    }),
  });
  const refusedBy = (words: string) => `The model's review of the templates was not made (${words}`;
  /** A conversation begun an hour before `now` (its age is within every limit). */
  const begin = (id: string, now: () => Date) => {
    const createdAt = new Date(now().getTime() - 3_600_000).toISOString();
    return f.store.createConversation(bugConversation(id, { createdAt, updatedAt: createdAt }));
  };

  /**
   * Runs the queries at once. The model answers once one of them ended, so all are past their
   * budget reads before the call ends.
   */
  async function racing(queries: Array<() => Promise<string>>): Promise<string[]> {
    let ended = 0;
    return f.withScript({ holdUntil: () => ended > 0 }, () =>
      Promise.all(
        queries.map((query) =>
          query().finally(() => {
            ended += 1;
          }),
        ),
      ),
    );
  }

  it("of two concurrent queries near the day's ceiling, only the one whose reservation fits calls the model", async () => {
    const day = daily();
    const today = '2031-03-04';
    const now = () => new Date(`${today}T12:00:00Z`);
    const limits = agentLimitsFrom(JSON.stringify({ maxDailyCostUsd: 1 }));
    // Below the ceiling by one review's real cost, far less than its worst case: one reservation fits, not two.
    await day.add(today, 1_000_000 - cost);
    const ids = ['review-race-day-1', 'review-race-day-2'];
    for (const id of ids) await begin(id, now);
    const before = f.model.requests.length;
    const outputs = await racing(
      ids.map((id) => () => f.queryLogs(f.depsWith(true, { store: day, limits, now }), id)),
    );
    expect(f.model.requests.length).toBe(before + 1);
    expect(outputs.filter((o) => o.includes('Templates reviewed by the model: 2 asked'))).toHaveLength(1);
    expect(
      outputs.filter((o) => o.includes(refusedBy('the platform reached its spending ceiling'))),
    ).toHaveLength(1);
    // The granted reservation was settled to the call's real cost; the refused one left nothing held.
    expect(await day.spentOn(today)).toBe(1_000_000);
  });

  it('of two concurrent queries of one conversation near its token budget, only one calls the model, and the ledger gets its real usage', async () => {
    const id = 'review-race-conversation';
    const now = () => new Date('2031-03-06T12:00:00Z');
    await begin(id, now);
    await f.store.addToLedger(id, { inputTokens: 50_000 });
    const limits = agentLimitsFrom(JSON.stringify({ maxConversationTokens: 50_001 }));
    const before = f.model.requests.length;
    const outputs = await racing(
      [0, 1].map(
        () => () => f.queryLogs(f.depsWith(true, { store: daily(), limits, now }, conversationStores()), id),
      ),
    );
    expect(f.model.requests.length).toBe(before + 1);
    expect(outputs.filter((o) => o.includes('Templates reviewed by the model: 2 asked'))).toHaveLength(1);
    expect(
      outputs.filter((o) => o.includes(refusedBy('it used its budget of 50,001 model tokens'))),
    ).toHaveLength(1);
    const ledger = (await f.store.getConversation(id))?.ledger;
    expect(ledger).toMatchObject({
      inputTokens: 50_000 + USAGE.input_tokens,
      outputTokens: USAGE.output_tokens,
    });
    // The conversation's reserved counter holds the real usage: no reservation is left open.
    const reservations = conversationStores().reservations;
    expect(await reservations.expired(id, Number.MAX_SAFE_INTEGER)).toEqual([]);
    const refused = await reservations.reserve(
      id,
      { id: 'probe', day: utcDay(now()), tokens: 1, microUsd: 0, expiresAtMs: 0 },
      { maxTokens: 50_000 + tokens },
    );
    expect(refused).toEqual({ granted: false, held: { tokens: 50_000 + tokens, microUsd: cost } });
  });

  it("gives the reservation back when the model call fails, and the query keeps the miner's templates", async () => {
    const day = daily();
    const today = '2031-03-05';
    const now = () => new Date(`${today}T12:00:00Z`);
    const limits = agentLimitsFrom(JSON.stringify({ maxDailyCostUsd: 1 }));
    const id = 'review-fails';
    await begin(id, now);
    await day.add(today, 500_000);
    const before = f.model.requests.length;
    const output = await f.withScript({ reply: () => httpError(400, 'scripted refusal') }, () =>
      f.queryLogs(f.depsWith(true, { store: day, limits, now }, conversationStores()), id),
    );
    expect(f.model.requests.length).toBe(before + 1);
    expect(output).toContain("The model's review of the templates failed");
    expect(output).toContain('Templates (count');
    expect(await day.spentOn(today)).toBe(500_000);
    expect((await f.store.getConversation(id))?.ledger?.inputTokens ?? 0).toBe(0);
    expect(await conversationStores().reservations.expired(id, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });
});
