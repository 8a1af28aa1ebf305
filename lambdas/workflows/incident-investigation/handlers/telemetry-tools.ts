import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoConversationBudget,
  DynamoConversationReservations,
} from '../../../adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../../../adapters/dynamo-daily-spend.ts';
import { modelClientFromEnv } from '../../../adapters/model-client.ts';
import { agentLimitsFrom } from '../../../agents/limits.ts';
import { modelPriceFrom } from '../../../agents/pricing.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { redactedForLog } from '../../../redaction/index.ts';
import { ENV, requireEnv } from '../../../shared/env.ts';
import { createLogger } from '../../../shared/logger.ts';
import { readTelemetryConfig, type TelemetryConfig } from '../telemetry/config.ts';
import type { TelemetryDeps } from '../telemetry/deps.ts';
import { runTelemetryTool, TelemetryToolInvocation } from '../telemetry/run-telemetry-tool.ts';
import { modelTemplateReview, type TemplateReviewDeps } from '../telemetry/template-advisor.ts';
import { createTelemetryDeps } from '../telemetry/wiring.ts';

/**
 * The telemetry tools' Lambda: ONE function serves `query_logs`, `query_metrics`,
 * `recent_deployments`, `service_map` and `get_incident` (lambdas/workflows/incident-investigation/telemetry/README.md),
 * dispatching on the tool name. One function because they share the configuration, the SDK
 * clients and the ledger, and need the same read-only permissions.
 *
 * Wrong arguments and refusals are `ok: false` results; a source that is down or throttling,
 * and the ledger failing, throw (a function error the agent runtime reports as a failed call).
 */
const logger = createLogger('telemetry-tools');

let deps: TelemetryDeps | undefined;

function telemetryDeps(): TelemetryDeps {
  if (deps !== undefined) return deps;
  const config = readTelemetryConfig();
  const templateReview = config.logTemplateReview.enabled ? reviewDeps(config) : undefined;
  deps = createTelemetryDeps({
    config,
    tableName: requireEnv(ENV.tableName),
    retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
    ...(templateReview ? { templateReview } : {}),
  });
  return deps;
}

/**
 * The configured model (MODEL_PROVIDER, MODEL_ID, MODEL_PRICE) as query_logs' template reviewer,
 * counted in the conversation's ledger and the day's spend, each call's worst case reserved
 * first on the agent turns' own counters (the day's ceiling, the conversation's budget).
 */
function reviewDeps(config: TelemetryConfig, env: NodeJS.ProcessEnv = process.env): TemplateReviewDeps {
  const price = modelPriceFrom(env[ENV.modelPrice]);
  const tableName = requireEnv(ENV.tableName, env);
  return modelTemplateReview({
    model: () => modelClientFromEnv(env, { timeoutMs: 30_000 }),
    modelId: requireEnv(ENV.modelId, env),
    ...(price ? { price } : {}),
    ledger: (conversationId, delta) => kernelDeps().store.addToLedger(conversationId, delta),
    config: config.logTemplateReview,
    daily: {
      store: new DynamoDailySpend({
        client: new DynamoDBClient({}),
        tableName,
        retentionDays: Number(env[ENV.retentionDays] ?? 90),
      }),
      limits: agentLimitsFrom(env[ENV.agentLimits]),
    },
    conversation: {
      budget: new DynamoConversationBudget({ client: new DynamoDBClient({}), tableName }),
      reservations: new DynamoConversationReservations({ client: new DynamoDBClient({}), tableName }),
    },
    logger,
  });
}

export const handler = taskHandler({
  task: 'TelemetryTools',
  schema: TelemetryToolInvocation,
  logger,
  run: (invocation) => runTelemetryTool(invocation, telemetryDeps()),
  summary: async (invocation, result) => ({
    tool: invocation.tool,
    scope: invocation.context?.scope,
    ok: result.ok,
    ...(result.ok
      ? { chars: result.output.length, evidence: /^Evidence (ev-\d+)/.exec(result.output)?.[1] }
      : { error: await redactedForLog(result.error, invocation.conversationId) }),
  }),
});
