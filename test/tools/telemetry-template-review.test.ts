import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  PutLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../lambdas/adapters/anthropic-model.ts';
import {
  DynamoConversationBudget,
  DynamoConversationReservations,
} from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { agentLimitsFrom } from '../../lambdas/agents/limits.ts';
import { costOfCall, DEFAULT_MODEL_PRICES, FREE_MODEL_PRICE, utcDay } from '../../lambdas/agents/pricing.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import type { TelemetryDeps } from '../../lambdas/workflows/incident-investigation/telemetry/deps.ts';
import { TELEMETRY_ENV } from '../../lambdas/workflows/incident-investigation/telemetry/environment.ts';
import { runTelemetryTool } from '../../lambdas/workflows/incident-investigation/telemetry/run-telemetry-tool.ts';
import { modelTemplateReview } from '../../lambdas/workflows/incident-investigation/telemetry/template-advisor.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { bugConversation } from '../support/conversations.ts';
import { until } from '../support/eventually.ts';
import {
  httpError,
  type ModelReply,
  type RecordedModelRequest,
  startScriptedModel,
  text,
  withUsage,
} from '../support/scripted-model.ts';
import { NOW, startTelemetryHarness, type TelemetryHarness } from './telemetry-harness.ts';

const SERVICE = { name: 'ledger-sync', logGroups: ['/test/ledger-sync'] };

/** A service's log: two frequent events, and three seen once or twice (the uncertain ones). */
function seededLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    lines.push(`synced batch ${1000 + i} of ${20 + (i % 7)} entries in ${30 + i}ms`);
    lines.push(`heartbeat from worker-${i % 5} lag ${i % 9}ms`);
  }
  lines.push('cache warmed for region eu-west-1');
  lines.push('cache warmed for region us-east-2');
  lines.push('schema version 42 loaded');
  lines.push('shutdown requested by operator alice');
  return lines;
}

/**
 * query_logs with the model's review of its uncertain templates: through the real Anthropic SDK
 * client against a scripted Messages API, the conversations' ledger in dynalite. Off by default;
 * on, each uncertain template is asked about once and the call's tokens and cost reach the ledger.
 */
const MODEL_ID = 'claude-haiku-4-5';
const USAGE = { input_tokens: 1_200, output_tokens: 80 };
const PRICE = DEFAULT_MODEL_PRICES[MODEL_ID] ?? FREE_MODEL_PRICE;

let h: TelemetryHarness;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
let store: DynamoConversationStore;

/** The review's answer: the first template asked about, with its last word made a variable. */
function answer(request: RecordedModelRequest) {
  const prompt = String(request.body.messages[0]?.content ?? '');
  const first = /^- id (\S+): (.*)$/m.exec(prompt);
  const words = (first?.[2] ?? '').split(' ');
  words[words.length - 1] = '<*>';
  return withUsage(text(JSON.stringify({ answers: [{ id: first?.[1], template: words.join(' ') }] })), USAGE);
}

/** How the scripted model answers the next requests (a test sets it and puts it back). */
let script: {
  /** Holds each answer until this holds (a test that needs a call still open while something else happens). */
  holdUntil?: () => boolean;
  reply: (request: RecordedModelRequest) => ModelReply;
} = { reply: answer };

beforeAll(async () => {
  h = await startTelemetryHarness();
  model = await startScriptedModel({
    steps: async (request) => {
      if (script.holdUntil) await until(script.holdUntil, 'the held answer to be released');
      return script.reply(request);
    },
  });
  store = new DynamoConversationStore({ client: new DynamoDBClient({}), tableName: h.tableName });
  const logs = new CloudWatchLogsClient({});
  await logs.send(new CreateLogGroupCommand({ logGroupName: SERVICE.logGroups[0] }));
  await logs.send(new CreateLogStreamCommand({ logGroupName: SERVICE.logGroups[0], logStreamName: 'main' }));
  const lines = seededLines();
  await logs.send(
    new PutLogEventsCommand({
      logGroupName: SERVICE.logGroups[0],
      logStreamName: 'main',
      logEvents: lines.map((message, i) => ({ timestamp: NOW - 1_800_000 + i * 1000, message })),
    }),
  );
});

afterAll(async () => {
  await model.close();
  await h.close();
});

function depsWith(
  enabled: boolean | undefined,
  daily?: { store: DynamoDailySpend; limits: ReturnType<typeof agentLimitsFrom>; now: () => Date },
  conversation?: { budget: DynamoConversationBudget; reservations: DynamoConversationReservations },
): TelemetryDeps {
  const config = TelemetryConfig.parse({
    ...DEMO_TELEMETRY_CONFIG,
    services: [...DEMO_TELEMETRY_CONFIG.services, SERVICE],
    ...(enabled === undefined ? {} : { logTemplateReview: { enabled, maxTemplates: 2 } }),
  });
  return {
    ...h.deps,
    config,
    templateReview: modelTemplateReview({
      model: async () => createAnthropicModel({ apiKey: 'test-key', baseURL: model.baseUrl, maxRetries: 0 }),
      modelId: MODEL_ID,
      price: PRICE,
      ledger: (conversationId, delta) => store.addToLedger(conversationId, delta),
      config: config.logTemplateReview,
      ...(daily ? { daily } : {}),
      ...(conversation ? { conversation } : {}),
    }),
  };
}

/** query_logs for a new conversation (fresh deps: a fresh review cache). */
async function queryWith(deps: TelemetryDeps, conversationId: string) {
  await store.createConversation(bugConversation(conversationId));
  return queryLogs(deps, conversationId);
}

async function queryLogs(deps: TelemetryDeps, conversationId: string) {
  const result = await runTelemetryTool(
    { tool: 'query_logs', args: { service: SERVICE.name, lastMinutes: 60 }, conversationId },
    deps,
  );
  if (!result.ok) throw new Error(result.error);
  return result.output;
}

describe('query_logs template review', () => {
  it('is off by default: no model call, nothing in the ledger', async () => {
    const deps = depsWith(undefined);
    expect(deps.config.logTemplateReview.enabled).toBe(false);
    await store.createConversation(bugConversation('review-off'));
    const before = model.requests.length;
    const output = await queryLogs(deps, 'review-off');
    expect(model.requests.length).toBe(before);
    expect(output).not.toContain('reviewed by the model');
    const ledger = (await store.getConversation('review-off'))?.ledger;
    expect(ledger?.inputTokens ?? 0).toBe(0);
    expect(ledger?.costMicroUsd ?? 0).toBe(0);
  });

  it('asks about each uncertain template once, at most maxTemplates per query, and counts the calls in the ledger', async () => {
    const deps = depsWith(true);
    await store.createConversation(bugConversation('review-on'));
    const before = model.requests.length;
    const first = await queryLogs(deps, 'review-on');
    expect(model.requests.length).toBe(before + 1);
    const request = model.requests.at(-1) as RecordedModelRequest;
    expect(request.body.model).toBe(MODEL_ID);
    expect(request.body.max_tokens).toBe(1024);
    const asked = (prompt: RecordedModelRequest | undefined) =>
      (String(prompt?.body.messages[0]?.content).split('Other templates')[0] ?? '').match(/^- id \S+: /gm)
        ?.length ?? 0;
    // Three uncertain templates; the budget lets two be asked per query.
    expect(asked(request)).toBe(2);
    expect(first).toContain('Templates reviewed by the model: 2 asked, 0 answered before, 1 corrected');

    // The same query again: the two answered come from the cache, the third is asked.
    const second = await queryLogs(deps, 'review-on');
    expect(model.requests.length).toBe(before + 2);
    expect(asked(model.requests.at(-1))).toBe(1);
    expect(second).toContain('Templates reviewed by the model: 1 asked, 2 answered before');

    // And again: every uncertain template has its answer; no call.
    const third = await queryLogs(deps, 'review-on');
    expect(model.requests.length).toBe(before + 2);
    expect(third).toContain('Templates reviewed by the model: 0 asked, 3 answered before');

    const ledger = (await store.getConversation('review-on'))?.ledger;
    expect(ledger).toMatchObject({
      inputTokens: 2 * USAGE.input_tokens,
      outputTokens: 2 * USAGE.output_tokens,
    });
    const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
    expect(cost).toBeGreaterThan(0);
    expect(ledger?.costMicroUsd).toBe(2 * cost);
    expect(model.failures).toEqual([]);
  });

  it("the telemetry function, on its configuration's switch, reviews with the configured model and prices the call", async () => {
    const config = { ...DEMO_TELEMETRY_CONFIG, services: [SERVICE], logTemplateReview: { enabled: true } };
    const env: Record<string, string> = {
      [TELEMETRY_ENV.config]: JSON.stringify(config),
      [ENV.tableName]: h.tableName,
      [ENV.modelProvider]: 'anthropic',
      [ENV.modelId]: MODEL_ID,
      [ENV.modelPrice]: JSON.stringify(PRICE),
      [ENV.anthropicBaseUrl]: model.baseUrl,
      [ENV.anthropicApiKey]: 'test-key',
      [ENV.modelMaxRetries]: '0',
    };
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    Object.assign(process.env, env);
    try {
      const { handler } = await import(
        '../../lambdas/workflows/incident-investigation/handlers/telemetry-tools.ts'
      );
      await store.createConversation(bugConversation('review-handler'));
      const before = model.requests.length;
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
      expect(model.requests.length).toBe(before + 1);
      expect(model.requests.at(-1)?.body.max_tokens).toBe(1024);
      expect(result.output).toContain('Templates reviewed by the model: 3 asked');
      const ledger = (await store.getConversation('review-handler'))?.ledger;
      expect(ledger).toMatchObject({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens });
      const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
      expect(ledger?.costMicroUsd).toBe(cost);
      // And to the platform's spend of the day, as an agent turn's calls are.
      const daily = new DynamoDailySpend({ client: new DynamoDBClient({}), tableName: h.tableName });
      expect(await daily.spentOn(utcDay(new Date()))).toBe(cost);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("makes no review call once the platform's daily ceiling is reached, and counts its calls in the day's spend", async () => {
    const store = new DynamoDailySpend({ client: new DynamoDBClient({}), tableName: h.tableName });
    const day = '2031-02-03';
    const now = () => new Date(`${day}T12:00:00Z`);
    const limits = agentLimitsFrom(JSON.stringify({ maxDailyCostUsd: 1 }));
    await store.add(day, 999_000);
    await queryWith(depsWith(true, { store, limits, now }), 'review-day-1');
    const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
    expect(await store.spentOn(day)).toBe(999_000 + cost);

    // The day's counter is past $1 now: the next query's review is not made.
    await store.add(day, 1_000);
    const before = model.requests.length;
    const output = await queryWith(depsWith(true, { store, limits, now }), 'review-day-2');
    expect(model.requests.length).toBe(before);
    expect(output).toContain(
      "The model's review of the templates was not made (the platform reached its spending ceiling",
    );
    expect(output).toContain('Templates (count');
  });
});

/**
 * The review's model call is spent the way an agent turn's are: its worst case (the prompt's
 * bytes and max_tokens at the model's dearest rates) is reserved on the day's counter and the
 * conversation's record before the call, settled to the real cost after, given back on failure.
 */
describe('query_logs template review under budgets held by reservation', () => {
  const cost = costOfCall({ inputTokens: USAGE.input_tokens, outputTokens: USAGE.output_tokens }, PRICE);
  const tokens = USAGE.input_tokens + USAGE.output_tokens;
  const daily = () => new DynamoDailySpend({ client: new DynamoDBClient({}), tableName: h.tableName });
  const conversationStores = () => ({
    budget: new DynamoConversationBudget({ client: new DynamoDBClient({}), tableName: h.tableName }),
    reservations: new DynamoConversationReservations({
      client: new DynamoDBClient({}),
      tableName: h.tableName,
    }),
  });
  const refusedBy = (words: string) => `The model's review of the templates was not made (${words}`;
  /** A conversation begun an hour before `now` (its age is within every limit). */
  const begin = (id: string, now: () => Date) => {
    const createdAt = new Date(now().getTime() - 3_600_000).toISOString();
    return store.createConversation(bugConversation(id, { createdAt, updatedAt: createdAt }));
  };

  /** Runs `act` with the scripted model answering as `next` says, then puts it back. */
  async function withScript<T>(next: Partial<typeof script>, act: () => Promise<T>): Promise<T> {
    const saved = script;
    script = { ...script, ...next };
    try {
      return await act();
    } finally {
      script = saved;
    }
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
    const before = model.requests.length;
    // The model answers once the other query ended, so both are past their budget reads before the call ends.
    let ended = 0;
    const outputs = await withScript({ holdUntil: () => ended > 0 }, () =>
      Promise.all(
        ids.map((id) =>
          queryLogs(depsWith(true, { store: day, limits, now }), id).finally(() => {
            ended += 1;
          }),
        ),
      ),
    );
    expect(model.requests.length).toBe(before + 1);
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
    await store.addToLedger(id, { inputTokens: 50_000 });
    const limits = agentLimitsFrom(JSON.stringify({ maxConversationTokens: 50_001 }));
    const before = model.requests.length;
    // The model answers once the other query ended, so both are past their budget reads before the call ends.
    let ended = 0;
    const outputs = await withScript({ holdUntil: () => ended > 0 }, () =>
      Promise.all(
        [0, 1].map(() =>
          queryLogs(depsWith(true, { store: daily(), limits, now }, conversationStores()), id).finally(() => {
            ended += 1;
          }),
        ),
      ),
    );
    expect(model.requests.length).toBe(before + 1);
    expect(outputs.filter((o) => o.includes('Templates reviewed by the model: 2 asked'))).toHaveLength(1);
    expect(
      outputs.filter((o) => o.includes(refusedBy('it used its budget of 50,001 model tokens'))),
    ).toHaveLength(1);
    const ledger = (await store.getConversation(id))?.ledger;
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
    const before = model.requests.length;
    const output = await withScript({ reply: () => httpError(400, 'scripted refusal') }, () =>
      queryLogs(depsWith(true, { store: day, limits, now }, conversationStores()), id),
    );
    expect(model.requests.length).toBe(before + 1);
    expect(output).toContain("The model's review of the templates failed");
    expect(output).toContain('Templates (count');
    expect(await day.spentOn(today)).toBe(500_000);
    expect((await store.getConversation(id))?.ledger?.inputTokens ?? 0).toBe(0);
    expect(await conversationStores().reservations.expired(id, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });
});
