import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { agentLimitsFrom } from '../../lambdas/agents/limits.ts';
import { costOfCall, utcDay } from '../../lambdas/agents/pricing.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { TELEMETRY_ENV } from '../../lambdas/workflows/incident-investigation/telemetry/environment.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { bugConversation } from '../support/conversations.ts';
import type { RecordedModelRequest } from '../support/scripted-model.ts';
import { NOW } from './telemetry-harness.ts';
import { MODEL_ID, PRICE, SERVICE, templateReviewFixture, USAGE } from './template-review-fixture.ts';

/**
 * query_logs with the model's review of its uncertain templates: off by default; on, each
 * uncertain template is asked about once and the call's tokens and cost reach the ledger, from
 * the telemetry function too; none past the platform's daily ceiling. Two queries racing for one
 * budget, and a failed call, are in telemetry-template-review-reservations.test.ts.
 */

const f = templateReviewFixture();

describe('query_logs template review', () => {
  it('is off by default: no model call, nothing in the ledger', async () => {
    const deps = f.depsWith(undefined);
    expect(deps.config.logTemplateReview.enabled).toBe(false);
    await f.store.createConversation(bugConversation('review-off'));
    const before = f.model.requests.length;
    const output = await f.queryLogs(deps, 'review-off');
    expect(f.model.requests.length).toBe(before);
    expect(output).not.toContain('reviewed by the model');
    const ledger = (await f.store.getConversation('review-off'))?.ledger;
    expect(ledger?.inputTokens ?? 0).toBe(0);
    expect(ledger?.costMicroUsd ?? 0).toBe(0);
  });

  it('asks about each uncertain template once, at most maxTemplates per query, and counts the calls in the ledger', async () => {
    const deps = f.depsWith(true);
    await f.store.createConversation(bugConversation('review-on'));
    const before = f.model.requests.length;
    const first = await f.queryLogs(deps, 'review-on');
    expect(f.model.requests.length).toBe(before + 1);
    const request = f.model.requests.at(-1) as RecordedModelRequest;
    expect(request.body.model).toBe(MODEL_ID);
    expect(request.body.max_tokens).toBe(1024);
    const asked = (prompt: RecordedModelRequest | undefined) =>
      (String(prompt?.body.messages[0]?.content).split('Other templates')[0] ?? '').match(/^- id \S+: /gm)
        ?.length ?? 0;
    // Three uncertain templates; the budget lets two be asked per query.
    expect(asked(request)).toBe(2);
    expect(first).toContain('Templates reviewed by the model: 2 asked, 0 answered before, 1 corrected');

    // The same query again: the two answered come from the cache, the third is asked.
    const second = await f.queryLogs(deps, 'review-on');
    expect(f.model.requests.length).toBe(before + 2);
    expect(asked(f.model.requests.at(-1))).toBe(1);
    expect(second).toContain('Templates reviewed by the model: 1 asked, 2 answered before');

    // And again: every uncertain template has its answer; no call.
    const third = await f.queryLogs(deps, 'review-on');
    expect(f.model.requests.length).toBe(before + 2);
    expect(third).toContain('Templates reviewed by the model: 0 asked, 3 answered before');

    const ledger = (await f.store.getConversation('review-on'))?.ledger;
    expect(ledger).toMatchObject({
      inputTokens: 2 * USAGE.input_tokens,
      outputTokens: 2 * USAGE.output_tokens,
    });
    const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
    expect(cost).toBeGreaterThan(0);
    expect(ledger?.costMicroUsd).toBe(2 * cost);
    expect(f.model.failures).toEqual([]);
  });

  it("the telemetry function, on its configuration's switch, reviews with the configured model and prices the call", async () => {
    const config = { ...DEMO_TELEMETRY_CONFIG, services: [SERVICE], logTemplateReview: { enabled: true } };
    const env: Record<string, string> = {
      [TELEMETRY_ENV.config]: JSON.stringify(config),
      [ENV.tableName]: f.h.tableName,
      [ENV.modelProvider]: 'anthropic',
      [ENV.modelId]: MODEL_ID,
      [ENV.modelPrice]: JSON.stringify(PRICE),
      [ENV.anthropicBaseUrl]: f.model.baseUrl,
      [ENV.anthropicApiKey]: 'test-key',
      [ENV.modelMaxRetries]: '0',
    };
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    Object.assign(process.env, env);
    try {
      const { handler } = await import(
        '../../lambdas/workflows/incident-investigation/handlers/telemetry-tools.ts'
      );
      await f.store.createConversation(bugConversation('review-handler'));
      const before = f.model.requests.length;
      const result = await handler({
        tool: 'query_logs',
        // The function's clock is the real one: the window is named.
        args: {
          service: SERVICE.name,
          since: new Date(NOW - 3_600_000).toISOString(),
          until: new Date(NOW).toISOString(),
        },
        conversationId: 'review-handler',
      });
      if (!result.ok) throw new Error(result.error);
      expect(f.model.requests.length).toBe(before + 1);
      expect(f.model.requests.at(-1)?.body.max_tokens).toBe(1024);
      expect(result.output).toContain('Templates reviewed by the model: 3 asked');
      const ledger = (await f.store.getConversation('review-handler'))?.ledger;
      expect(ledger).toMatchObject({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens });
      const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
      expect(ledger?.costMicroUsd).toBe(cost);
      // And to the platform's spend of the day, as an agent turn's calls are.
      const daily = new DynamoDailySpend({ client: new DynamoDBClient({}), tableName: f.h.tableName });
      expect(await daily.spentOn(utcDay(new Date()))).toBe(cost);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("makes no review call once the platform's daily ceiling is reached, and counts its calls in the day's spend", async () => {
    const store = new DynamoDailySpend({ client: new DynamoDBClient({}), tableName: f.h.tableName });
    const day = '2031-02-03';
    const now = () => new Date(`${day}T12:00:00Z`);
    const limits = agentLimitsFrom(JSON.stringify({ maxDailyCostUsd: 1 }));
    await store.add(day, 999_000);
    await f.queryWith(f.depsWith(true, { store, limits, now }), 'review-day-1');
    const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
    expect(await store.spentOn(day)).toBe(999_000 + cost);

    // The day's counter is past $1 now: the next query's review is not made.
    await store.add(day, 1_000);
    const before = f.model.requests.length;
    const output = await f.queryWith(f.depsWith(true, { store, limits, now }), 'review-day-2');
    expect(f.model.requests.length).toBe(before);
    expect(output).toContain(
      "The model's review of the templates was not made (the platform reached its spending ceiling",
    );
    expect(output).toContain('Templates (count');
  });
});
