import type { DrainedMessage } from '../kernel/drained-message.ts';
import type { Conversation } from '../kernel/model.ts';
import type { ProgressTarget } from './ports.ts';

/** A Slack user id (the sandbox's have underscores); GitHub and alert senders have other ids. */
const SLACK_USER = /^[UW][A-Z0-9_]{2,}$/;
/** A Slack channel id: public (`C`), private (`G`) or a DM (`D`). */
const SLACK_CHANNEL = /^[CDG][A-Z0-9_]{2,}$/;

/**
 * Where a turn's progress is shown: the thread of the newest message handed to the turn (the
 * person who is waiting), else the conversation's newest thread (an alert- or GitHub-started
 * turn). Undefined when the conversation owns no thread yet. A conversation in a DM with the
 * app (a channel id starting with `D`) is an assistant thread.
 */
export function progressTarget(
  conversation: Pick<Conversation, 'id' | 'anchors' | 'ownerId'>,
  input: { turn: number; messages: readonly DrainedMessage[] },
): ProgressTarget | undefined {
  // Only Slack threads: a conversation may own a GitHub issue's comments too.
  const anchors = Object.values(conversation.anchors).filter((a) => SLACK_CHANNEL.test(a.channel));
  const people = input.messages.filter((m) => m.senderType !== 'bot');
  const newest = people.at(-1);
  const candidates = newest ? anchors.filter((a) => a.channel === newest.channel) : [];
  const thread =
    latest(candidates.filter((a) => newest === undefined || Number(a.threadTs) <= Number(newest.ts))) ??
    latest(candidates) ??
    latest(anchors);
  if (thread === undefined) return undefined;
  // The person who wrote last in the thread, else the conversation's owner (a turn with no new message).
  const recipient =
    [...people].reverse().find((m) => m.channel === thread.channel && SLACK_USER.test(m.senderId))
      ?.senderId ?? (SLACK_USER.test(conversation.ownerId) ? conversation.ownerId : undefined);
  return {
    conversationId: conversation.id,
    turn: input.turn,
    channel: thread.channel,
    threadTs: thread.threadTs,
    ...(recipient ? { recipientUserId: recipient } : {}),
    assistantThread: thread.channel.startsWith('D'),
  };
}

function latest<T extends { threadTs: string }>(anchors: readonly T[]): T | undefined {
  return anchors.reduce<T | undefined>(
    (best, a) => (best === undefined || Number(a.threadTs) > Number(best.threadTs) ? a : best),
    undefined,
  );
}
