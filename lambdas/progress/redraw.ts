import type { TurnEnd } from './closing.ts';
import { HEADING } from './open-message.ts';
import type { ProgressRecord, ProgressSlack } from './ports.ts';
import {
  closedStreamBlocks,
  type ProgressChunk,
  type TimelinePlan,
  timelineBlocks,
  timelineText,
} from './timeline.ts';

/**
 * How a turn's timeline message, once posted, shows what changed: a stream is appended to (and
 * stopped when the turn ends), a message is updated in place. Apart from `TurnProgress`
 * (lambdas/progress/turn-progress.ts), which decides when to redraw and keeps the record.
 */

/** What a redraw reads from its turn. */
export interface RedrawView {
  slack: ProgressSlack;
  conversationId: string;
  plan: TimelinePlan | undefined;
  /** Runs a Slack call, counted, its failure logged: `'over'` when Slack says the stream has ended. */
  call(method: string, run: () => Promise<void>): Promise<true | false | 'over'>;
  closingLine(end: TurnEnd): string;
}

/**
 * Sends a stream's new chunks, with its closing line and stop when the turn ends. A stream
 * Slack has closed becomes a message updated in place (`record.kind` changes).
 */
export async function redrawStream(
  record: ProgressRecord,
  chunks: ProgressChunk[],
  ending: TurnEnd | undefined,
  view: RedrawView,
): Promise<void> {
  const ends = ending !== undefined && ending.kind !== 'continues';
  const all = ends ? [...chunks, { type: 'markdown_text' as const, text: view.closingLine(ending) }] : chunks;
  const done = !ends
    ? all.length === 0 ||
      (await view.call('appendStream', () =>
        view.slack.appendStream({ channel: record.channel, ts: record.ts, chunks: all }),
      ))
    : await view.call('stopStream', () =>
        view.slack.stopStream({ channel: record.channel, ts: record.ts, chunks: all }),
      );
  if (done === 'over') {
    // The stream ended on Slack's side (it closes idle streams): the same message, updated in place.
    record.kind = 'message';
    await redrawMessage(record, ending, view);
  } else if (done === true && ends) {
    // A stream cannot take back its Stop button: the stopped stream's message is rewritten
    // as what it showed, without it.
    await view.call('chat.update', () =>
      view.slack.updateMessage({
        channel: record.channel,
        ts: record.ts,
        text: view.closingLine(ending),
        blocks: closedStreamBlocks({
          heading: `${HEADING}…`,
          tasks: record.tasks,
          plan: view.plan,
          closing: view.closingLine(ending),
        }),
      }),
    );
  }
}

/** Rewrites a message timeline as it stands: running, or closed with its closing line. */
export function redrawMessage(
  record: ProgressRecord,
  ending: TurnEnd | undefined,
  view: RedrawView,
): Promise<true | false | 'over'> {
  const running = ending === undefined || ending.kind === 'continues';
  const footer = running ? undefined : view.closingLine(ending);
  return view.call('chat.update', () =>
    view.slack.updateMessage({
      channel: record.channel,
      ts: record.ts,
      text: timelineText(HEADING, record.tasks),
      blocks: timelineBlocks({
        heading: HEADING,
        tasks: record.tasks,
        plan: view.plan,
        conversationId: view.conversationId,
        running,
        footer,
      }),
    }),
  );
}
