import { isSlackThread } from './anchors.ts';
import type { Conversation } from './model.ts';
import type { ThreadLink } from './ports.ts';
import type { Incoming, RouteOutcome, RouterDeps } from './route-types.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * A message in the thread of an ended conversation. The bug workflow ends a bug for good (resolved,
 * workspace cleaned up) and the people who were in it have moved on, so it is not reopened:
 * the sender is told, in the thread, that this conversation is over and how to start a new
 * one, which then gets its own investigation. Slack threads only; a button press on an ended
 * conversation is the approvals' business.
 */
export async function answerEnded(
  link: ThreadLink,
  incoming: Incoming,
  conversation: Conversation,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const reason = `conversation is ${conversation.status}`;
  if (deps.endedNotice === undefined || incoming.kind !== 'message' || !isSlackThread(link.anchor)) {
    return { type: 'ignored', conversationId: conversation.id, reason };
  }
  await deps.endedNotice({
    conversationId: conversation.id,
    channel: link.anchor.channel,
    threadTs: link.anchor.threadTs,
    ts: incoming.ts,
    text: endedText(conversation, deps.workflows),
  });
  return { type: 'ignored', conversationId: conversation.id, reason: `${reason}; told the sender` };
}

function endedText(conversation: Conversation, workflows: readonly WorkflowRegistration[]): string {
  const how = workflows
    .find((w) => w.workflow === conversation.workflow)
    ?.triggers.map((t) =>
      t.type === 'channel_message'
        ? `post a new message in <#${t.channel}>`
        : t.type === 'slash_command'
          ? `use ${t.command}`
          : undefined,
    )
    .find((text) => text !== undefined);
  return `This conversation has ended (${conversation.status}), so this reply was not passed on. To start a new one, ${how ?? 'start a new conversation'}.`;
}
