import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { resolveBotUserId } from '../adapters/bot-user-id.ts';
import { DynamoApprovalStore } from '../adapters/dynamo-approvals.ts';
import { DynamoEnvelopeStore } from '../adapters/dynamo-envelopes.ts';
import { DynamoPostLedger } from '../adapters/dynamo-post-ledger.ts';
import { retriggerDeps } from '../adapters/retrigger-queue.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import type { AgentLogger } from '../agents/ports.ts';
import type { NamedConversationLookup } from '../feedback/adapters/answer-conversations.ts';
import { InboxRecord, resolveInboxRecord } from '../kernel/inbox.ts';
import { Approvals } from '../kernel/people.ts';
import { systemClock } from '../kernel/ports.ts';
import { type EndedNotice, type RouterAddition, routeEnvelope, type Told } from '../kernel/route.ts';
import type { ApprovalDeps } from '../kernel/route-approval.ts';
import { routerDefaults } from '../kernel/router-defaults.ts';
import type { StopNotices } from '../kernel/stop.ts';
import { inConversation } from '../redaction/index.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger, createMetrics } from '../shared/logger.ts';
import { createSlackApprovalNotices } from '../slack/approval-notices.ts';
import { postToSlack } from '../slack/post-to-slack.ts';
import { NO_TEMPLATES } from '../slack/templates/index.ts';
import { createSlackPoster } from '../slack/web-client.ts';
import { endedNoticeDeps } from './ended-notice.ts';
import { processFifoBatch } from './fifo-batch.ts';
import { peopleDirectory } from './people-directory.ts';
import { countingRedactions, type OtherLedger } from './redaction-ledger.ts';
import { createSurfaceRouter } from './surfaces.ts';
import { kernelDeps, workflowRegistrations } from './wiring.ts';

const logger = createLogger('router');
const metrics = createMetrics('router');

/**
 * What one workflow module adds to the Router (its `routerAdditions` file exports it as
 * `part`): the stack composes every enabled module's part into the Router's bundle, in the
 * modules' order (docs/architecture.md, "The Router").
 */
export interface RouterPart {
  /**
   * Builds what the workflow adds to routing (channel conversations add the messages no
   * workflow owns), once per instance; none when its switch is off.
   */
  additions?: (logger: AgentLogger) => readonly RouterAddition[];
  /**
   * Finds the conversation of an answer the kernel does not record by thread, for its
   * feedback (channel conversations' answers name theirs).
   */
  namedConversations?: () => NamedConversationLookup;
  /**
   * The ledger of conversations without a kernel record, where what the Router's doors redact
   * for them is counted (channel conversations keep one), once per instance.
   */
  otherLedger?: () => OtherLedger;
}

/**
 * The Router's handler with the workflows' parts: takes inbox records in FIFO order, per Slack
 * thread (see `processFifoBatch`): a record that fails holds back the rest of its conversation,
 * in order, while other conversations go on.
 */
export function createRouterHandler(parts: readonly RouterPart[] = []) {
  /** Built on the first record of an instance (its clients are reused). */
  let additions: readonly RouterAddition[] | undefined;
  let others: readonly OtherLedger[] | undefined;
  const otherLedger = (): OtherLedger | undefined => {
    others ??= parts.flatMap((part) => (part.otherLedger ? [part.otherLedger()] : []));
    const ledgers = others;
    if (ledgers.length === 0) return undefined;
    // Each ledger keeps its own conversations: the first that counts the conversation's values has it.
    return async (conversationId, added) => {
      for (const ledger of ledgers) if (await ledger(conversationId, added)) return true;
      return false;
    };
  };

  let envelopes: DynamoEnvelopeStore | undefined;
  let ended: ReturnType<typeof endedNoticeDeps> | undefined;
  let retriggers: ReturnType<typeof retriggerDeps> | undefined;
  // Feedback, the App Home and assistant threads (handlers/surfaces.ts); built on first use.
  const surfaces = createSurfaceRouter({
    logger,
    count: (name) => metrics.addMetric(name, MetricUnit.Count, 1),
    namedConversations: parts.flatMap((part) =>
      part.namedConversations ? [lazyNamed(part.namedConversations)] : [],
    ),
  });

  async function routeRecord(record: InboxRecord): Promise<void> {
    // The bot's own messages are ignored by its id (configured, or from auth.test once), and
    // the notices below are posted as it: resolved before anything reads it.
    await resolveBotUserId();
    // An envelope too large for SQS waits in the table; the record is its reference.
    envelopes ??= new DynamoEnvelopeStore({
      client: new DynamoDBClient({}),
      tableName: requireEnv(ENV.tableName),
    });
    ended ??= endedNoticeDeps(logger);
    retriggers ??= retriggerDeps();
    const envelope = await resolveInboxRecord(record, envelopes);
    const people = await peopleDirectory();
    // The app's surfaces are the kernel's own addition; the workflows' come after.
    additions ??= [
      { takes: 'surface', route: surfaces },
      ...parts.flatMap((part) => part.additions?.(logger) ?? []),
    ];
    const outcome = await routeEnvelope(
      envelope,
      {
        // What this deployment does not wire is the kernel's (an App's login, no roles, no notice).
        ...routerDefaults(systemClock),
        ...kernelDeps(),
        clock: systemClock,
        workflows: workflowRegistrations(),
        // The Router's own replies in a conversation's thread use its placeholders, and are counted in its ledger.
        inConversation,
        botUserId: process.env[ENV.botUserId],
        githubLogin: process.env[ENV.githubLogin],
        ...(people ? { people } : {}),
        // Built on the first press (they read the Slack secret), once per instance.
        approvals: approvalDeps,
        stops: stopNotices(ended?.endedNotice),
        ...ended,
        ...retriggers,
      },
      additions,
    );
    // A decision taken in the App Home: the presser's Home is published again without it.
    if (envelope.kind === 'action' && envelope.fromHome === true && outcome.type === 'approval') {
      const { eventId, user, receivedAt, ts } = envelope;
      await surfaces({ kind: 'surface', surface: 'home_opened', eventId, user, receivedAt, ts });
    }
    const conversationId = 'conversationId' in outcome ? outcome.conversationId : undefined;
    logger.info('routed inbox record', {
      ...(conversationId ? { conversationId } : {}),
      eventId: envelope.eventId,
      kind: envelope.kind,
      outcome,
    });
    metrics.addMetric(`Routed_${outcome.type}`, MetricUnit.Count, 1);
    if (outcome.type === 'stored' && outcome.wake.outcome === 'woken')
      metrics.addMetric('WaitsWoken', MetricUnit.Count, 1);
  }

  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processFifoBatch(event, context, {
      schema: InboxRecord,
      // What the record's doors replace (a stored message's values) is counted in its conversation's ledger.
      handle: (record) => countingRedactions(() => routeRecord(record), logger, otherLedger()),
      deadLetterQueueUrl: () => requireEnv(ENV.inboxDeadLetterQueueUrl),
      describe: 'envelope',
      logger,
      metrics,
      // Threads are routed side by side, each in order: a reply does not wait for the other
      // threads' records before it in the batch. The wake protocol holds for any interleaving
      // (Router instances already route different threads at once, even of one conversation).
      groupsAtOnce: true,
    });
}

/** The workflow's lookup, built on its first use (not at import, before the environment is set). */
function lazyNamed(build: () => NamedConversationLookup): NamedConversationLookup {
  let named: NamedConversationLookup | undefined;
  return (where) => {
    named ??= build();
    return named(where);
  };
}

/**
 * What a stop says (kernel/stop.ts): the thread's line through SlackPost, as the notice of an
 * ended conversation is (posted once per stop), and the refusal as an ephemeral message.
 */
function stopNotices(post: ((notice: EndedNotice) => Promise<Told>) | undefined): StopNotices {
  return {
    said: async (notice) => {
      await post?.({ ...notice, ts: `stop:${notice.ts}` });
    },
    refused: async (channel, user, text, threadTs) => {
      await (await approvalDeps()).notices.refused(channel, user, text, threadTs);
    },
  };
}

/** Approval presses' configuration, store and Slack notices, built once per instance. */
let approvalsDeps: Promise<ApprovalDeps> | undefined;

function approvalDeps(): Promise<ApprovalDeps> {
  approvalsDeps ??= (async () => {
    const raw = process.env[ENV.approvals];
    const rules = Approvals.parse(raw === undefined || raw === '' ? {} : JSON.parse(raw));
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    const client = new DynamoDBClient({});
    const tableName = requireEnv(ENV.tableName);
    const slack = { token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) };
    const postDeps = {
      store: kernelDeps().store,
      slack: createSlackPoster(slack),
      posts: new DynamoPostLedger({
        client,
        tableName,
        retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
      }),
      clock: systemClock,
      botUserId: process.env[ENV.botUserId] ?? 'bot',
      templates: NO_TEMPLATES,
    };
    return {
      rules,
      store: new DynamoApprovalStore({ client, tableName }),
      notices: createSlackApprovalNotices({
        ...slack,
        // The decision's line in the thread goes through SlackPost's ledger: posted once, and
        // kept in the conversation's history like every post of the bot.
        threadLine: async (line) => {
          await postToSlack(line, postDeps);
        },
      }),
      tasks: kernelDeps().executions,
    };
  })().catch((error: unknown) => {
    approvalsDeps = undefined;
    throw error;
  });
  return approvalsDeps;
}

/**
 * The Router with the parts of the modules that add to it: the stack composes the deployed
 * bundle's handler with this (the function's `parts`, statemachines/kernel-functions.ts).
 */
export const compose = createRouterHandler;

/** The kernel's Router, with no module's part. */
export const handler = createRouterHandler();
