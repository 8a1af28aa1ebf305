import type {
  ProgressLedger,
  ProgressRecord,
  ProgressSlack,
  ProgressSlackRefusal,
  ProgressTarget,
} from './ports.ts';
import {
  type ProgressChunk,
  stopBlock,
  type TimelinePlan,
  type TimelineTask,
  taskChunk,
  timelineBlocks,
  timelineText,
} from './timeline.ts';

/** The heading of a timeline while its turn works. */
export const HEADING = 'Working on it';

/** Slack's refusals that mean the stream is over: the message is updated in place from then on. */
export const STREAM_OVER = new Set([
  'message_not_in_streaming_state',
  'streaming_state_conflict',
  'message_not_found',
]);

export function refusalOf(error: unknown): string | undefined {
  const code = (error as ProgressSlackRefusal | undefined)?.slackError;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A turn's timeline message: the one an earlier attempt of the turn posted (its post key found
 * in the post ledger, or in the thread when the ledger saw an attempt but no answer), or a new
 * one posted with the tasks and plan so far. `found`: an earlier post, kept without tasks, that
 * the turn is to redraw as it stands now.
 */
export async function findOrOpenTimeline(
  target: ProgressTarget,
  args: { key: string; plan: TimelinePlan | undefined; tasks: TimelineTask[]; startedAt: string },
  deps: Parameters<typeof openTimelineMessage>[2] & { posts: ProgressLedger },
): Promise<{ record: ProgressRecord; found: boolean }> {
  const { channel, threadTs } = target;
  const { key, plan, tasks, startedAt } = args;
  const found = await findEarlierPost(target, key, deps);
  const record: ProgressRecord = found
    ? { key, channel, threadTs, ts: found.ts, kind: 'message', open: true, tasks: [], startedAt }
    : {
        key,
        channel,
        threadTs,
        open: true,
        tasks,
        ...(plan ? { plan } : {}),
        startedAt,
        ...(await openTimelineMessage(target, { key, plan, tasks }, deps)),
      };
  return { record, found: found !== undefined };
}

async function findEarlierPost(
  target: ProgressTarget,
  key: string,
  deps: { slack: ProgressSlack; posts: ProgressLedger },
): Promise<{ ts: string } | undefined> {
  const { conversationId, channel, threadTs } = target;
  const recorded = await deps.posts.find(conversationId, key);
  if (recorded) return recorded;
  const attempt = await deps.posts.attempt?.(conversationId, key);
  return attempt?.earlier ? deps.slack.findPost({ channel, threadTs, postKey: key }) : undefined;
}

/**
 * Posts a timeline's message: a stream where one can be addressed, else (or when Slack refuses
 * the stream) one message updated in place. Every Slack call goes through `counted`.
 */
async function openTimelineMessage(
  target: ProgressTarget,
  args: { key: string; plan: TimelinePlan | undefined; tasks: readonly TimelineTask[] },
  deps: {
    slack: ProgressSlack;
    logger: { warn(message: string, details?: Record<string, unknown>): void };
    counted: <T>(run: () => Promise<T>) => Promise<T>;
  },
): Promise<{ ts: string; kind: 'stream' | 'message' }> {
  const { channel, threadTs, conversationId } = target;
  const { plan, tasks } = args;
  const recipient = await recipientOf(target, deps.slack);
  if (recipient !== undefined) {
    try {
      const planChunks: ProgressChunk[] = plan
        ? [{ type: 'plan_update', title: plan.title }, ...plan.steps.map(taskChunk)]
        : [];
      const { ts } = await deps.counted(() =>
        deps.slack.startStream({
          channel,
          threadTs,
          taskDisplayMode: plan ? 'plan' : 'timeline',
          ...recipient,
          chunks: [
            { type: 'markdown_text', text: `${HEADING}…` },
            { type: 'blocks', blocks: [stopBlock(conversationId)] },
            ...planChunks,
            ...tasks.map(taskChunk),
          ],
        }),
      );
      return { ts, kind: 'stream' };
    } catch (error) {
      if (refusalOf(error) === undefined) throw error;
      deps.logger.warn('Slack refused the stream: the progress is one message updated in place', { error });
    }
  }
  const blocks = timelineBlocks({ heading: HEADING, tasks, plan, conversationId, running: true });
  const { ts } = await deps.counted(() =>
    deps.slack.postMessage({
      channel,
      threadTs,
      text: timelineText(HEADING, tasks),
      blocks,
      postKey: args.key,
    }),
  );
  return { ts, kind: 'message' };
}

/**
 * Who the stream is for: nobody needed in a DM with the app; elsewhere the person the turn
 * answers and the workspace. Undefined when a stream cannot be addressed (no person).
 */
async function recipientOf(
  target: ProgressTarget,
  slack: ProgressSlack,
): Promise<{ recipientUserId?: string; recipientTeamId?: string } | undefined> {
  if (target.assistantThread) return {};
  if (target.recipientUserId === undefined) return undefined;
  const team = await slack.teamId().catch(() => undefined);
  return team === undefined ? undefined : { recipientUserId: target.recipientUserId, recipientTeamId: team };
}
