import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ConversationThreads } from '../adapters/dynamo-turn-conversation.ts';
import type { DrainedMessage } from '../kernel/drained-message.ts';
import type { Conversation } from '../kernel/model.ts';
import { systemClock } from '../kernel/ports.ts';
import { closeOpenTimeline, openTurnProgress } from '../progress/open-turn-progress.ts';
import type { ProgressLogger, TimelineAsRead } from '../progress/ports.ts';
import { removeReplacedTimeline, timelineSummary, timelineToReplace } from '../progress/replaced-timeline.ts';
import type { TimelinePlan } from '../progress/timeline.ts';
import type { TurnProgress, TurnProgressDeps } from '../progress/turn-progress.ts';
import { ENV, MissingConfigurationError, requireEnv } from '../shared/env.ts';

let built: Promise<TurnProgressDeps> | undefined;

/** Whether agent turns show live progress (`LIVE_PROGRESS`, on unless `off`). */
export function liveProgressEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[ENV.liveProgress] !== 'off';
}

/** The AgentTurn's live progress: the real adapters, built once per instance. */
/** The real adapters, built once per instance; a failure is not kept. */
function progressDeps(logger: ProgressLogger): Promise<TurnProgressDeps> {
  built ??= buildDeps(logger).catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

/** Closes a timeline its turn left open, before the workflow's next post (docs/live-progress.md). */
export function closeLeftOpenTimeline(
  conversationId: string,
  logger: ProgressLogger,
  /**
   * The conversation as the caller read it (SlackPost's reads), and the timeline when it read
   * that too (else it is read here).
   */
  read: {
    timeline: TimelineAsRead | undefined;
    conversation: Pick<Conversation, 'closeRequested' | 'ownerId'> | undefined;
  },
): Promise<TimelineAsRead | undefined> {
  if (!liveProgressEnabled()) return Promise.resolve(undefined);
  return closeOpenTimeline(conversationId, {
    progress: () => progressDeps(logger),
    logger,
    conversation: async () => read.conversation,
    ...(read.timeline ? { read: read.timeline } : {}),
  });
}

/**
 * The closed timeline a post to `where` takes the place of (docs/live-progress.md, One message
 * per turn): its summary for the post, and the removal of its message once the post is out.
 * Undefined when there is none, progress is off, or it cannot be read (logged).
 */
export async function timelineReplacedBy(
  conversationId: string,
  where: { channel: string; threadTs?: string | undefined },
  logger: ProgressLogger,
  /** The timeline as `closeLeftOpenTimeline` read and left it: not read again. */
  read?: TimelineAsRead,
): Promise<{ summary: string; remove(postTs: string): Promise<void> } | undefined> {
  if (!liveProgressEnabled()) return undefined;
  try {
    const deps = await progressDeps(logger);
    const record = await timelineToReplace(conversationId, where, deps.store, read);
    return (
      record && {
        summary: timelineSummary(record),
        remove: (postTs) => removeReplacedTimeline(conversationId, record, postTs, deps),
      }
    );
  } catch (error) {
    logger.warn('could not read the timeline a post would replace', { error });
    return undefined;
  }
}

export function startTurnProgress(
  input: { conversationId: string; turn: number; messages: readonly DrainedMessage[] },
  options: {
    logger: ProgressLogger;
    plan?: TimelinePlan | undefined;
    shared?: boolean;
    /** The conversation's threads and owner, as the turn's start read them (TurnStartRecord). */
    threads: () => Promise<ConversationThreads>;
  },
): Promise<TurnProgress | undefined> {
  if (!liveProgressEnabled()) return Promise.resolve(undefined);
  return openTurnProgress(input, {
    conversation: options.threads,
    progress: () => progressDeps(options.logger),
    plan: options.plan,
    shared: options.shared ?? false,
    logger: options.logger,
  });
}

/**
 * Imported here, on the first turn that shows progress, not with the module: a turn without
 * live progress (`LIVE_PROGRESS=off`, a conversation outside Slack) never loads the Slack
 * client, the secret's reader or the progress tables, and the AgentTurn's cold start is shorter.
 */
async function buildDeps(logger: ProgressLogger): Promise<TurnProgressDeps> {
  const [{ getSlackSecret }, { createProgressClient }, { DynamoProgressStore }, { DynamoPostLedger }] =
    await Promise.all([
      import('../adapters/secrets.ts'),
      import('../slack/progress-client.ts'),
      import('../adapters/dynamo-progress-store.ts'),
      import('../adapters/dynamo-post-ledger.ts'),
    ]);
  const { botToken } = await getSlackSecret();
  const slackApiUrl = process.env[ENV.slackApiUrl];
  const table = {
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
    retentionDays: Number(process.env[ENV.retentionDays] ?? 90),
  };
  return {
    slack: createProgressClient({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) }),
    store: new DynamoProgressStore(table),
    posts: new DynamoPostLedger(table),
    clock: systemClock,
    logger,
    ...showAfter(process.env[ENV.liveProgressAfterMs]),
  };
}

/** `LIVE_PROGRESS_AFTER_MS`, when set: a number of milliseconds >= 0, else the configuration is wrong. */
function showAfter(raw: string | undefined): { showAfterMs?: number } {
  if (raw === undefined || raw === '') return {};
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new MissingConfigurationError(`${ENV.liveProgressAfterMs} (milliseconds >= 0)`);
  return { showAfterMs: value };
}
