import type { DrainedMessage } from '../kernel/drained-message.ts';
import type { Conversation } from '../kernel/model.ts';
import type { ProgressLogger, TimelineAsRead } from './ports.ts';
import { isClaim } from './shared-record.ts';
import { progressTarget } from './target.ts';
import type { TimelinePlan } from './timeline.ts';
import { type TurnEnd, TurnProgress, type TurnProgressDeps } from './turn-progress.ts';

/**
 * Begins a turn's live progress, or returns undefined (progress off, no thread to show it in,
 * or anything failing on the way: progress never fails a turn).
 */
export async function openTurnProgress(
  input: { conversationId: string; turn: number; messages: readonly DrainedMessage[] },
  deps: {
    conversation: (id: string) => Promise<Pick<Conversation, 'id' | 'anchors' | 'ownerId'> | undefined>;
    progress: () => Promise<TurnProgressDeps>;
    plan?: TimelinePlan | undefined;
    /** The turn's timeline is its round's, shared with the round's other turns. @default false */
    shared?: boolean;
    logger: ProgressLogger;
  },
): Promise<TurnProgress | undefined> {
  try {
    const conversation = await deps.conversation(input.conversationId);
    const target = conversation && progressTarget(conversation, input);
    if (target === undefined) {
      deps.logger.info('no thread to show this turn in: live progress is off for it');
      return undefined;
    }
    const progress = new TurnProgress(target, await deps.progress(), deps.plan, deps.shared ?? false);
    progress.begin();
    return progress;
  } catch (error) {
    deps.logger.warn('live progress is off for this turn', { error });
    return undefined;
  }
}

/** Why a stopped turn's timeline closes. */
const STOPPED_BY_PERSON = 'stopped by a person in the thread';

/** Why a timeline closes when its conversation was closed ("never mind" from its owner). */
export const closedByReason = (user: string) => `closed by <@${user}>`;

/**
 * How a turn's output ends its timeline: `continue` keeps it open for the next invocation,
 * unless the turn was stopped (it ends `continue` too, but nothing of it goes on): by a Stop,
 * or by a close, which says who closed the conversation (`closedBy`). A turn whose round goes
 * on after it (`roundGoesOn`) leaves the round's timeline open, however it ended.
 */
export function turnEndOf(
  output: { action: string; error?: string },
  how: { stopped?: boolean; closedBy?: string | undefined; roundGoesOn?: boolean } = {},
): TurnEnd {
  if (how.roundGoesOn) return { kind: 'continues' };
  if (how.closedBy !== undefined) return { kind: 'stopped', reason: closedByReason(how.closedBy) };
  if (how.stopped) return { kind: 'stopped', reason: STOPPED_BY_PERSON };
  if (output.action === 'continue') return { kind: 'continues' };
  if (output.error !== undefined) return { kind: 'stopped', reason: 'the turn did not finish its work' };
  return { kind: 'done' };
}

/** Why a timeline is closed by the workflow's next post rather than by its turn. */
const UNFINISHED_TURN = 'the turn ended without finishing';

/**
 * Closes the conversation's timeline if one is still open: its turn ended without closing it
 * (it failed after its retries, or its function died), or the conversation was closed while a
 * round's timeline was open, and the workflow now says something else in Slack. The timeline
 * gets its closing line (who closed the conversation, when it was closed) and loses its Stop
 * button. Never throws. When it read the timeline and left it as it was, it gives back what it
 * read, so the post that follows need not read it again (`timelineToReplace`).
 */
export async function closeOpenTimeline(
  conversationId: string,
  deps: {
    progress: () => Promise<TurnProgressDeps>;
    logger: ProgressLogger;
    /** The conversation's close, if one was requested: by its owner. @default - none known */
    conversation?: (id: string) => Promise<Pick<Conversation, 'closeRequested' | 'ownerId'> | undefined>;
    /** The timeline as the caller read it already: not read again. @default - read here */
    read?: TimelineAsRead;
  },
): Promise<TimelineAsRead | undefined> {
  try {
    const record = deps.read ? deps.read.record : await (await deps.progress()).store.load(conversationId);
    // A claim is a round's message being posted, not a message yet: nothing to close.
    if (!record?.open || isClaim(record)) return { record };
    const built = await deps.progress();
    const progress = new TurnProgress(
      {
        conversationId,
        turn: 0,
        channel: record.channel,
        threadTs: record.threadTs,
        assistantThread: record.channel.startsWith('D'),
      },
      built,
    );
    const conversation = await deps.conversation?.(conversationId);
    const reason = conversation?.closeRequested ? closedByReason(conversation.ownerId) : UNFINISHED_TURN;
    await progress.finish({ kind: 'stopped', reason });
  } catch (error) {
    deps.logger.warn('could not close an open timeline', { error });
  }
}
