import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resolveBotUserId } from '../adapters/bot-user-id.ts';
import { DynamoApprovalStore } from '../adapters/dynamo-approvals.ts';
import { DynamoOutbox } from '../adapters/dynamo-outbox.ts';
import { DynamoPostLedger } from '../adapters/dynamo-post-ledger.ts';
import { DynamoPostReads } from '../adapters/dynamo-post-reads.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import { systemClock } from '../kernel/ports.ts';
import type { SlackPostOutput } from '../kernel/slack-post-output.ts';
import type { SlackPostInput } from '../kernel/tasks.ts';
import { allEnded } from '../shared/all-ended.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { postOrKeep } from '../slack/outbox.ts';
import { postToSlack } from '../slack/post-to-slack.ts';
import { NO_TEMPLATES, slackPostInputFor, type TemplateRegistry } from '../slack/templates/index.ts';
import { KERNEL_TEMPLATES } from '../slack/templates/kernel-templates.ts';
import { createSlackPoster, type SlackClient, type SlackPermalinks } from '../slack/web-client.ts';
import { taskHandler } from './task-handler.ts';
import { closeLeftOpenTimeline, liveProgressEnabled, timelineReplacedBy } from './turn-progress.ts';
import { kernelDeps } from './wiring.ts';

const logger = createLogger('slack-post');
let poster: (SlackClient & SlackPermalinks) | undefined;
let ledger: DynamoPostLedger | undefined;
let approvals: DynamoApprovalStore | undefined;
let outbox: DynamoOutbox | undefined;
let reads: DynamoPostReads | undefined;

/** Posts kept through a Slack outage (lambdas/slack/outbox.ts), built on first use. */
function postOutbox(): DynamoOutbox {
  outbox ??= new DynamoOutbox({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
    retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
  });
  return outbox;
}

/** The idempotency records (with the first attempt's note), built on first use. */
function postLedger(): DynamoPostLedger {
  ledger ??= new DynamoPostLedger({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
    retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
  });
  return ledger;
}

/** The conversation's items a post reads, in one request; built on first use. */
function postReads(): DynamoPostReads {
  reads ??= new DynamoPostReads({ client: new DynamoDBClient({}), tableName: requireEnv(ENV.tableName) });
  return reads;
}

/** Where a post's approval is opened, built on first use. */
function approvalStore(): DynamoApprovalStore {
  approvals ??= new DynamoApprovalStore({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
  });
  return approvals;
}

async function slackPoster(): Promise<SlackClient & SlackPermalinks> {
  if (!poster) {
    const { botToken } = await getSlackSecret();
    const slackApiUrl = process.env[ENV.slackApiUrl];
    poster = createSlackPoster({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
  }
  return poster;
}

/**
 * A SlackPost handler rendering `templates` (a workflow's): posts for a workflow, records the
 * post in the conversation, and anchors new threads. Each workflow's entry file calls this
 * with its own templates; the kernel's (`agent_stopped`) come with every one.
 */
export function createSlackPostHandler(workflowTemplates: TemplateRegistry) {
  const templates: TemplateRegistry = { ...KERNEL_TEMPLATES, ...workflowTemplates };
  return taskHandler({
    task: 'SlackPost',
    schema: slackPostInputFor(templates),
    logger,
    run: async (input): Promise<SlackPostOutput> => {
      const deps = kernelDeps();
      const slack = await slackPoster();
      const outbox = postOutbox();
      // What the post reads, in two requests side by side: the conversation, its idempotency
      // record and the live progress record in one, the conversation's kept posts in the other.
      const progress = liveProgressEnabled();
      const [read, waiting] = await allEnded([
        postReads().read(input.conversationId, { idempotencyKey: input.idempotencyKey, progress }),
        outbox.waiting(input.conversationId),
      ]);
      // A timeline whose turn ended without closing it closes before the workflow says more.
      const left = await closeLeftOpenTimeline(input.conversationId, logger, {
        timeline: read.progress,
        conversation: read.conversation,
      });
      // A turn is one message in its thread: a post there takes the place of its closed timeline.
      const timeline = await timelineReplacedBy(input.conversationId, input, logger, left);
      const posted = await postOrKeep(
        timeline ? { ...input, timeline: timeline.summary } : input,
        {
          store: deps.store,
          posts: postLedger(),
          slack,
          permalinks: slack,
          clock: systemClock,
          botUserId: await resolveBotUserId(),
          templates,
          approvals: approvalStore(),
          outbox,
        },
        waiting,
        read,
      );
      if (timeline && posted.outcome === 'posted') await timeline.remove(posted.output.ts);
      if (posted.outcome === 'kept')
        logger.warn('Slack is unavailable: the post is kept and posted once Slack is back', {
          conversationId: input.conversationId,
          idempotencyKey: input.idempotencyKey,
          reason: posted.reason,
        });
      return posted.output;
    },
    summary: (input, output) => ({ channel: output.channel, ts: output.ts, anchor: input.anchor?.name }),
  });
}

/**
 * Posts a text (with its approval's buttons) for a conversation at once, as SlackPost does but
 * never kept for later: an agent turn asking an approval waits on the post it makes now.
 */
export async function postNow(input: SlackPostInput): Promise<SlackPostOutput> {
  const slack = await slackPoster();
  return postToSlack(input, {
    store: kernelDeps().store,
    posts: postLedger(),
    slack,
    clock: systemClock,
    botUserId: await resolveBotUserId(),
    templates: NO_TEMPLATES,
    approvals: approvalStore(),
  });
}

/** The kernel's SlackPost: texts and blocks, no templates. */
export const handler = createSlackPostHandler(NO_TEMPLATES);
