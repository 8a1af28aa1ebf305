import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoConversationBudget,
  DynamoConversationReservations,
  type TurnEnd,
} from '../adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../adapters/dynamo-daily-spend.ts';
import { DynamoRunningTurns } from '../adapters/dynamo-running-turns.ts';
import { DynamoTranscriptStore } from '../adapters/dynamo-transcripts.ts';
import { type StopRequests, TurnStartRecord } from '../adapters/dynamo-turn-conversation.ts';
import { createLambdaToolInvoker } from '../adapters/lambda-tool-invoker.ts';
import { modelClientFromEnv } from '../adapters/model-client.ts';
import { createAgentMetrics, recordFailedTurn, withModelMetrics } from '../adapters/model-metrics.ts';
import { turnBudget } from '../agents/budget.ts';
import { AgentTurnInput, STOPPED_BY_PERSON_FIELD } from '../agents/contract.ts';
import { ProfileNotFoundError } from '../agents/errors.ts';
import type { DailySpendStore } from '../agents/limit-checks.ts';
import type { AgentLimits } from '../agents/limits.ts';
import type { ModelClient, ToolInvoker } from '../agents/ports.ts';
import { type ModelPrice, modelPriceFrom } from '../agents/pricing.ts';
import { loadProfile, type ProfileLoaders } from '../agents/profile.ts';
import type { ConversationReservations, DailyReservations } from '../agents/reservations.ts';
import { runAgentTurn } from '../agents/run-agent-turn.ts';
import { systemClock } from '../kernel/ports.ts';
import { runningTurnEntry } from '../kernel/running-turns.ts';
import type { McpEvidence } from '../mcp/toolset.ts';
import { turnEndOf } from '../progress/open-turn-progress.ts';
import type { TimelinePlan } from '../progress/timeline.ts';
import { type RedactionSettings, redactionSettings } from '../redaction/index.ts';
import { allEnded } from '../shared/all-ended.ts';
import { ENV, MissingConfigurationError, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { kernelTableOptions } from './table-options.ts';
import { taskHandler } from './task-handler.ts';
import { turnConversation } from './turn-conversation.ts';
import { startTurnProgress } from './turn-progress.ts';

const logger = createLogger('agent-turn');
const metrics = createAgentMetrics();

interface AgentAdapters {
  limits: AgentLimits;
  conversationBudget: DynamoConversationBudget;
  dailySpend: DailySpendStore;
  reservations: { day: DailyReservations; conversation: ConversationReservations };
  price?: ModelPrice;
  model: ModelClient;
  modelId: string;
  redaction: RedactionSettings;
  tools: ToolInvoker;
  transcripts: DynamoTranscriptStore;
}

/** How long a turn counts as running when the Lambda's deadline is unknown (the function's timeout). */
const RUNNING_TURN_FALLBACK_MS = 15 * 60_000;

let running: DynamoRunningTurns | undefined;
const runningTurns = () => {
  running ??= new DynamoRunningTurns(kernelTableOptions());
  return running;
};

/** Built on the first turn (the sandbox loads this module before it sets the environment), then reused. */
let adapters: Promise<AgentAdapters> | undefined;

async function buildAdapters(env: NodeJS.ProcessEnv = process.env): Promise<AgentAdapters> {
  const provider = env[ENV.modelProvider] ?? 'anthropic';
  // The limits' schema reads the configuration once per instance: built here, not at load.
  const limits = (await import('../agents/limits.ts')).agentLimitsFrom(env[ENV.agentLimits]);
  const tableName = requireEnv(ENV.tableName, env);
  const price = modelPriceFrom(env[ENV.modelPrice]);
  if (price === undefined && (limits.maxConversationCostUsd ?? limits.maxDailyCostUsd) !== undefined) {
    // The stack always sets a price; this is a hand-made deployment.
    logger.warn('money limits are configured but MODEL_PRICE is not set: model calls are unpriced');
  }
  const dailySpend = new DynamoDailySpend({
    client: new DynamoDBClient({}),
    tableName,
    retentionDays: numberFromEnv(ENV.retentionDays, env) ?? 90,
  });
  return {
    limits,
    conversationBudget: new DynamoConversationBudget({ client: new DynamoDBClient({}), tableName }),
    dailySpend,
    // Every model call's worst case is reserved on the day's counter and the conversation's record.
    reservations: {
      day: dailySpend,
      conversation: new DynamoConversationReservations({ client: new DynamoDBClient({}), tableName }),
    },
    ...(price === undefined ? {} : { price }),
    model: withModelMetrics(
      await modelClientFromEnv(env, {
        timeoutMs: limits.modelCallTimeoutSeconds * 1000,
        maxRetryAfterSeconds: limits.maxRetryAfterSeconds,
      }),
      { metrics, provider },
    ),
    modelId: requireEnv(ENV.modelId, env),
    redaction: redactionSettings(env),
    tools: createLambdaToolInvoker(),
    transcripts: new DynamoTranscriptStore({
      client: new DynamoDBClient({}),
      tableName,
      retentionDays: numberFromEnv(ENV.retentionDays, env) ?? 90,
      onSkippedTurn: (details) => logger.warn('skipped an incomplete transcript turn', details),
    }),
  };
}

/** Whether the stack configured MCP servers (their settings are parsed, and checked, by mcp-turn.ts). */
function mcpConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env[ENV.mcp];
  return raw !== undefined && raw !== '';
}

function numberFromEnv(name: (typeof ENV)[keyof typeof ENV], env: NodeJS.ProcessEnv): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new MissingConfigurationError(`${name} (a number >= 0)`);
  return value;
}

/**
 * A workflow's AgentTurn handler: one agent turn of one of `roles` (the workflow's), which
 * runs the role's tool loop and returns its structured output (always with an `action` the
 * workflow's Choice knows; model failures become `escalate`, a spent budget `continue`). The
 * budget ends 30 s before the Lambda's timeout, and at AGENT_TURN_BUDGET_SECONDS. Each
 * workflow's entry file calls this with its own roles, so no Lambda bundles another
 * workflow's, and a turn loads only the role it runs.
 */
export function createAgentTurnHandler(
  roles: ProfileLoaders,
  options: {
    /**
     * A workflow's own ceiling for each of its conversations, held per model call with the
     * conversation's; asked once per turn (a promise: the workflow's settings may load with it).
     */
    conversationCeiling?: () => Promise<{ maxCostUsd?: number; maxTokens?: number }>;
    /**
     * Checks the senders code can check only with the workflow's own clients (a GitHub
     * commenter's permission) and sets each message's `verified`, before the prompt is built.
     * @default - none: senders are judged by their role (kernel/people-text.ts `isVerified`)
     */
    verifySenders?: (messages: AgentTurnInput['messages']) => Promise<AgentTurnInput['messages']>;
    /**
     * The workflow's plan shown above the turn's tasks (its stages, an incident's phases).
     * @default - none: the tasks alone, as a timeline
     */
    plan?: (input: AgentTurnInput) => TimelinePlan | undefined;
    /**
     * The workflow's rounds: its turns share one timeline (turns of a round may run at once),
     * which a turn leaves open for the next unless `ends` says the round ends with it.
     * @default - none: each turn has its own timeline, closed when the turn ends
     */
    round?: { ends: (input: AgentTurnInput, how: { stopped: boolean }) => boolean };
    /**
     * Records an MCP result as evidence the workflow's findings may cite (docs/mcp.md).
     * @default - none: MCP results are data the agents read, not citable evidence
     */
    mcpEvidence?: McpEvidence;
  } = {},
) {
  return taskHandler({
    task: 'AgentTurn',
    schema: AgentTurnInput,
    logger,
    run: async (given, context, meter) => {
      const input =
        options.verifySenders === undefined || given.messages.length === 0
          ? given
          : { ...given, messages: await options.verifySenders(given.messages) };
      const profiles = await loadProfile(roles, input.profile);
      if (profiles === undefined) throw new ProfileNotFoundError(input.profile, Object.keys(roles));
      const pending = adapters ?? buildAdapters();
      adapters = pending;
      // A configuration error must not stick to the instance: the next invocation tries again.
      const built = await pending.catch((error: unknown) => {
        adapters = undefined;
        throw error;
      });
      const budgetSeconds = numberFromEnv(ENV.agentTurnBudgetSeconds, process.env);
      const maxToolCalls = numberFromEnv(ENV.agentMaxToolCalls, process.env);
      const store = turnConversation();
      const startedAt = systemClock.now().toISOString();
      // Noted on the conversation while it runs, so a Stop knows there is a turn to stop.
      const running = runningTurnEntry(
        input.turn,
        new Date(Date.parse(startedAt) + (context?.getRemainingTimeInMillis() ?? RUNNING_TURN_FALLBACK_MS)),
      );
      const budget = turnBudget({
        nowMs: systemClock.now().getTime(),
        ...(context ? { remainingMs: context.getRemainingTimeInMillis() } : {}),
        ...(budgetSeconds !== undefined ? { budgetMs: budgetSeconds * 1000 } : {}),
        ...(maxToolCalls !== undefined ? { maxToolCalls } : {}),
      });
      // Three starts go out together before the turn runs: the note above, live progress in the
      // conversation's thread (it never fails the turn, docs/live-progress.md), and the tools of
      // the MCP servers configured for this workflow (docs/mcp.md; without any configured,
      // nothing of MCP is loaded: its settings' schemas and its clients are a chunk of their
      // own, read on the first turn that needs them). The note's update returns the
      // conversation's record, and what the turn reads of it at its start comes from there
      // (TurnStartRecord): the other two wait for it, not for reads of their own. A failure is
      // thrown once all three have ended, so none is left half done.
      const noted = runningTurns()
        .started(input.conversationId, running)
        .then((item) => new TurnStartRecord(input.conversationId, item));
      const [progress, record, mcp] = await allEnded([
        startTurnProgress(input, {
          logger,
          plan: options.plan?.(input),
          shared: options.round !== undefined,
          threads: () => noted.then((started) => started.threads()),
        }),
        noted,
        mcpConfigured()
          ? import('./mcp-turn.ts').then(({ withMcpTools }) =>
              withMcpTools(input, {
                profiles,
                tools: built.tools,
                deadlineMs: budget.deadlineMs,
                logger,
                evidence: options.mcpEvidence,
                record: noted,
              }),
            )
          : undefined,
      ]);
      // A stopped turn ends `continue` like one out of time; its timeline closes all the same,
      // and a person's Stop is marked on the output (`stoppedByPerson`), so the workflow goes on
      // to its wait instead of another turn.
      let stopped: { how: 'stop' | 'close'; owner: string } | undefined;
      const stopRequested = async () => {
        stopped = await stoppedSince(store, input.conversationId, startedAt);
        return stopped !== undefined;
      };
      // How the turn ended, for its streak of continuations: noted by the turn, written below.
      let turnEnd: TurnEnd | undefined;
      // The running-turn note comes off when the turn ends, however it ends; never fails it.
      // At the turn's end its time goes to the ledger, and how it ended to its streak, in the
      // same update (true once written).
      const turnEnded = (ledger?: { lambdaMs: number }) =>
        runningTurns()
          .ended(input.conversationId, running, ledger, turnEnd)
          .then(
            () => true,
            (error: unknown) => {
              logger.warn('could not note the turn ended', { error });
              return false;
            },
          );
      const output: { action: string; sessionId: string; error?: string } = await runAgentTurn(input, {
        ...built,
        // What the conversation spent and its expired reservations, from the record as read above.
        conversationBudget: record.budget(built.conversationBudget, (end) => {
          turnEnd = end;
        }),
        transcripts: record.transcripts(built.transcripts),
        reservations: {
          ...built.reservations,
          conversation: record.reservations(built.reservations.conversation),
        },
        profiles,
        ...mcp,
        ...(progress ? { toolCalls: progress } : {}),
        stopRequested,
        ...(options.conversationCeiling ? { conversationCeiling: await options.conversationCeiling() } : {}),
        ledger: (conversationId, delta) => store.addToLedger(conversationId, delta),
        clock: systemClock,
        budget,
        logger,
      }).catch(async (error: unknown) => {
        // Retried by the state machine: the retry continues the same timeline.
        await allEnded([progress?.finish({ kind: 'continues' }), turnEnded()]);
        throw error;
      });
      const roundGoesOn = options.round?.ends(input, { stopped: stopped !== undefined }) === false;
      const closedBy = stopped?.how === 'close' ? stopped.owner : undefined;
      // The timeline's end and the note's removal are independent: one round of calls.
      await allEnded([
        progress?.finish(turnEndOf(output, { stopped: stopped !== undefined, closedBy, roundGoesOn })),
        turnEnded({ lambdaMs: Math.round(meter.elapsedMs()) }).then((timed) => timed && meter.recorded()),
      ]);
      // A failed turn escalates to people: an alarm counts it, and the terminal shows it at WARN.
      if (recordFailedTurn(metrics, output))
        logger.warn('agent turn failed: escalating', { profile: input.profile, error: output.error });
      return stopped?.how === 'stop' && output.action === 'continue'
        ? { ...output, [STOPPED_BY_PERSON_FIELD]: true }
        : output;
    },
    summary: (input, output) => ({
      profile: input.profile,
      turn: input.turn,
      mode: input.mode,
      state: input.state,
      action: output.action,
      sessionId: output.sessionId,
      ...(output.error ? { error: output.error } : {}),
    }),
  });
}

/**
 * How the conversation was stopped since `startedAt`, if it was: `stop` (the Stop button, `stop`
 * in the thread: the turn ends and the workflow goes on to its wait), or `close` ("never mind":
 * a close requested, which the workflow's next Drain finds; only the owner closes, so the
 * owner is who closed it). A stop or close from before the turn began is not this turn's.
 */
async function stoppedSince(
  store: { stopRequests(conversationId: string): Promise<StopRequests | undefined> },
  conversationId: string,
  startedAt: string,
): Promise<{ how: 'stop' | 'close'; owner: string } | undefined> {
  const conversation = await store.stopRequests(conversationId);
  if (conversation === undefined) return undefined;
  const closedAt = conversation.closeRequestedAt;
  if (conversation.closeRequested && closedAt !== undefined && closedAt >= startedAt)
    return { how: 'close', owner: conversation.ownerId };
  const stoppedAt = conversation.stopRequestedAt;
  return stoppedAt !== undefined && stoppedAt >= startedAt
    ? { how: 'stop', owner: conversation.ownerId }
    : undefined;
}
