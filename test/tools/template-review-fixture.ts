import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  PutLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { createAnthropicModel } from '../../lambdas/adapters/anthropic-model.ts';
import type {
  DynamoConversationBudget,
  DynamoConversationReservations,
} from '../../lambdas/adapters/dynamo-conversation-budget.ts';
import type { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { agentLimitsFrom } from '../../lambdas/agents/limits.ts';
import { DEFAULT_MODEL_PRICES, FREE_MODEL_PRICE } from '../../lambdas/agents/pricing.ts';
import { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import type { TelemetryDeps } from '../../lambdas/workflows/incident-investigation/telemetry/deps.ts';
import { runTelemetryTool } from '../../lambdas/workflows/incident-investigation/telemetry/run-telemetry-tool.ts';
import { modelTemplateReview } from '../../lambdas/workflows/incident-investigation/telemetry/template-advisor.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { bugConversation } from '../support/conversations.ts';
import { until } from '../support/eventually.ts';
import {
  type ModelReply,
  type RecordedModelRequest,
  startScriptedModel,
  text,
  withUsage,
} from '../support/scripted-model.ts';
import { NOW, startTelemetryHarness, type TelemetryHarness } from './telemetry-harness.ts';

/**
 * query_logs with the model's review of its uncertain templates: through the real Anthropic SDK
 * client against a scripted Messages API, the conversations' ledger in dynalite, a service whose
 * log has three uncertain templates. What telemetry-template-review.test.ts and
 * telemetry-template-review-reservations.test.ts both run their queries with.
 */

export const SERVICE = { name: 'ledger-sync', logGroups: ['/test/ledger-sync'] };

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

export const MODEL_ID = 'claude-haiku-4-5';
export const USAGE = { input_tokens: 1_200, output_tokens: 80 };
export const PRICE = DEFAULT_MODEL_PRICES[MODEL_ID] ?? FREE_MODEL_PRICE;

/** The review's answer: the first template asked about, with its last word made a variable. */
function answer(request: RecordedModelRequest) {
  const prompt = String(request.body.messages[0]?.content ?? '');
  const first = /^- id (\S+): (.*)$/m.exec(prompt);
  const words = (first?.[2] ?? '').split(' ');
  words[words.length - 1] = '<*>';
  return withUsage(text(JSON.stringify({ answers: [{ id: first?.[1], template: words.join(' ') }] })), USAGE);
}

/** How the scripted model answers the next requests. */
interface Script {
  /** Holds each answer until this holds (a test that needs a call still open while something else happens). */
  holdUntil?: () => boolean;
  reply: (request: RecordedModelRequest) => ModelReply;
}

/** The spending stores a review is given: the day's and the conversation's. */
type DailySpend = { store: DynamoDailySpend; limits: ReturnType<typeof agentLimitsFrom>; now: () => Date };
type ConversationSpend = { budget: DynamoConversationBudget; reservations: DynamoConversationReservations };

/** What a template review test reads and queries with: set in the file's `beforeAll`. */
export interface TemplateReviewFixture {
  h: TelemetryHarness;
  model: Awaited<ReturnType<typeof startScriptedModel>>;
  store: DynamoConversationStore;
  /** The telemetry deps with the review switched as `enabled` says, spending as the stores given say. */
  depsWith(enabled: boolean | undefined, daily?: DailySpend, conversation?: ConversationSpend): TelemetryDeps;
  /** query_logs for a new conversation (fresh deps: a fresh review cache). */
  queryWith(deps: TelemetryDeps, conversationId: string): Promise<string>;
  /** query_logs of the service's last hour for `conversationId`. */
  queryLogs(deps: TelemetryDeps, conversationId: string): Promise<string>;
  /** Runs `act` with the scripted model answering as `next` says, then puts it back. */
  withScript<T>(next: Partial<Script>, act: () => Promise<T>): Promise<T>;
}

/**
 * Registers the file's hooks: the telemetry harness, the scripted model and the service's log,
 * started once for the file, and returns what they fill.
 */
export function templateReviewFixture(): TemplateReviewFixture {
  let script: Script = { reply: answer };
  const fixture = {
    depsWith(enabled, daily, conversation) {
      const config = TelemetryConfig.parse({
        ...DEMO_TELEMETRY_CONFIG,
        services: [...DEMO_TELEMETRY_CONFIG.services, SERVICE],
        ...(enabled === undefined ? {} : { logTemplateReview: { enabled, maxTemplates: 2 } }),
      });
      return {
        ...fixture.h.deps,
        config,
        templateReview: modelTemplateReview({
          model: async () =>
            createAnthropicModel({ apiKey: 'test-key', baseURL: fixture.model.baseUrl, maxRetries: 0 }),
          modelId: MODEL_ID,
          price: PRICE,
          ledger: (conversationId, delta) => fixture.store.addToLedger(conversationId, delta),
          config: config.logTemplateReview,
          ...(daily ? { daily } : {}),
          ...(conversation ? { conversation } : {}),
        }),
      };
    },
    async queryWith(deps, conversationId) {
      await fixture.store.createConversation(bugConversation(conversationId));
      return fixture.queryLogs(deps, conversationId);
    },
    async queryLogs(deps, conversationId) {
      const result = await runTelemetryTool(
        { tool: 'query_logs', args: { service: SERVICE.name, lastMinutes: 60 }, conversationId },
        deps,
      );
      if (!result.ok) throw new Error(result.error);
      return result.output;
    },
    async withScript(next, act) {
      const saved = script;
      script = { ...script, ...next };
      try {
        return await act();
      } finally {
        script = saved;
      }
    },
  } as TemplateReviewFixture;

  beforeAll(async () => {
    fixture.h = await startTelemetryHarness();
    fixture.model = await startScriptedModel({
      steps: async (request) => {
        if (script.holdUntil) await until(script.holdUntil, 'the held answer to be released');
        return script.reply(request);
      },
    });
    fixture.store = new DynamoConversationStore({
      client: new DynamoDBClient({}),
      tableName: fixture.h.tableName,
    });
    const logs = new CloudWatchLogsClient({});
    await logs.send(new CreateLogGroupCommand({ logGroupName: SERVICE.logGroups[0] }));
    await logs.send(
      new CreateLogStreamCommand({ logGroupName: SERVICE.logGroups[0], logStreamName: 'main' }),
    );
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
    await fixture.model.close();
    await fixture.h.close();
  });

  return fixture;
}
