import { isSlackThread } from './anchors.ts';
import type { Conversation } from './model.ts';
import type { Ended, RouteOutcome, RouterDeps } from './route-types.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * A message in the thread of an ended conversation. The bug workflow ends a bug for good (resolved,
 * workspace cleaned up) and the people who were in it have moved on, so it is not reopened:
 * the sender is told, in the thread, that this conversation is over and how to start a new
 * one, which then gets its own investigation. Slack threads only; a button press on an ended
 * conversation is the approvals' business. The Router's table hands it every message a route
 * finds for an ended conversation (route.ts).
 */
export async function answerEnded(ended: Ended, deps: RouterDeps): Promise<RouteOutcome> {
  const conversation = ended.conversation;
  const anchor = ended.link.anchor;
  const reason = `conversation is ${conversation.status}`;
  const text = endedText(conversation, deps.workflows);
  if (ended.incoming.kind !== 'message' || !isSlackThread(anchor)) {
    return { type: 'ignored', conversationId: conversation.id, reason };
  }
  const told = await deps.endedNotice({
    conversationId: conversation.id,
    channel: anchor.channel,
    threadTs: anchor.threadTs,
    ts: ended.incoming.ts,
    text,
  });
  return {
    type: 'ignored',
    conversationId: conversation.id,
    reason: told === 'told' ? `${reason}; told the sender` : reason,
  };
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
