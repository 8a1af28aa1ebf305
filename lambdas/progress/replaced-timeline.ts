import { refusalOf } from './open-message.ts';
import type {
  ProgressLogger,
  ProgressRecord,
  ProgressSlack,
  ProgressStore,
  TimelineAsRead,
} from './ports.ts';
import { isClaim } from './shared-record.ts';
import { escapeText, STATUS_EMOJI, type TimelineTask, withMentions } from './timeline.ts';

/**
 * A turn is one message in its thread: the workflow's next post in the thread of a timeline
 * whose turn ended with its work done (the turn's answer: a question, findings, a plan) takes
 * the timeline's place. The post is a new reply, so it notifies the thread as any answer does
 * (an edit of the timeline would notify nobody), and it opens with the timeline's summary (its
 * closing line and the last steps with their outcomes); the timeline's message is then deleted.
 * Pure but for the calls it is handed; lambdas/handlers/slack-post.ts runs it around the post.
 */

/** Steps listed in the summary; the earlier ones are counted. */
const SUMMARY_STEPS = 8;
/** A context element's text limit in Block Kit. */
const CONTEXT_TEXT_LIMIT = 3_000;

/**
 * The closed timeline a post to `where` takes the place of: the conversation's timeline when its
 * turn ended done in that very thread and it is still shown. A timeline of a turn stopped or
 * unfinished stays (it says what happened), as does one closed by an earlier release (no
 * closing line kept: its answer was posted below it).
 */
export async function timelineToReplace(
  conversationId: string,
  where: { channel: string; threadTs?: string | undefined },
  store: Pick<ProgressStore, 'load'>,
  /** The timeline as just read, unchanged since (`closeOpenTimeline`): not read again. */
  read?: TimelineAsRead,
): Promise<ProgressRecord | undefined> {
  const record = read ? read.record : await store.load(conversationId);
  if (!record || record.open || isClaim(record)) return undefined;
  if (record.replacedBy !== undefined || record.closing === undefined) return undefined;
  return record.channel === where.channel && record.threadTs === where.threadTs ? record : undefined;
}

/** The summary the replacing post opens with: the closing line, the plan, the last steps. */
export function timelineSummary(record: ProgressRecord): string {
  const line = (t: TimelineTask) =>
    `${STATUS_EMOJI[t.status]} ${escapeText(t.title)}${t.output ? ` — ${escapeText(t.output)}` : ''}`;
  const shown = record.tasks.slice(-SUMMARY_STEPS);
  const earlier = record.tasks.length - shown.length;
  const plan = record.plan
    ? [
        `*${escapeText(record.plan.title)}*: ${record.plan.steps.map((s) => `${STATUS_EMOJI[s.status]} ${escapeText(s.title)}`).join('  ')}`,
      ]
    : [];
  const lines = [
    withMentions(escapeText(record.closing ?? '')),
    ...plan,
    ...(earlier > 0 ? [`_${earlier} earlier step${earlier === 1 ? '' : 's'}_`] : []),
    ...shown.map(line),
  ];
  const text = lines.join('\n');
  return text.length <= CONTEXT_TEXT_LIMIT ? text : `${text.slice(0, CONTEXT_TEXT_LIMIT - 1)}…`;
}

/**
 * Deletes the timeline's message once the post that replaces it is out (`postTs`), and notes
 * it replaced. A message already gone counts as deleted (a retried post). Never throws: a
 * failure is logged and the timeline stays, closed, above the post.
 */
export async function removeReplacedTimeline(
  conversationId: string,
  record: ProgressRecord,
  postTs: string,
  deps: {
    slack: Pick<ProgressSlack, 'deleteMessage'>;
    store: Pick<ProgressStore, 'save'>;
    logger: ProgressLogger;
  },
): Promise<void> {
  try {
    try {
      await deps.slack.deleteMessage({ channel: record.channel, ts: record.ts });
    } catch (error) {
      if (refusalOf(error) !== 'message_not_found') throw error;
    }
    await deps.store.save(conversationId, { ...record, replacedBy: postTs });
  } catch (error) {
    deps.logger.warn('could not remove the timeline an answer replaced', { error });
  }
}
