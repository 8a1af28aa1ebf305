import { FINISHED_STATUSES } from './model.ts';
import type { ThreadLink } from './ports.ts';
import type { RouteOutcome, RouterDeps } from './route-types.ts';

export type { StopNotices } from './route-types.ts';

import { turnRunning } from './running-turns.ts';

/**
 * Stop: `stop` sent alone in a conversation's thread, or a press of the Stop button
 * (`stop_turn`, its value the conversation's id), ends the agent turn running now and nothing
 * else. The turn sees it before its next model call or before its answer is handed back, and
 * ends without posting (agents/run-agent-turn.ts); the workflow then goes on to its wait for
 * people, as after an answer (closing stays a separate act: "never mind", or the workflow's
 * own end). The thread is told who stopped it. When nothing runs (the conversation waits), the
 * person is told so privately and nothing changes; a person outside the conversation is
 * refused, privately.
 */

export const STOP_ACTION_ID = 'stop_turn';

/** `stop`, alone, in any case: a sentence that merely contains it is an ordinary message. */
export function isStopText(text: string): boolean {
  return /^\s*stop\s*$/i.test(text);
}

export interface StopRequest {
  user: string;
  channel: string;
  /** The stop's own ts (the message's, or the press's action ts): its idempotency key. */
  ts: string;
  /** For the button: the conversation id its value names. */
  value?: string;
}

export async function routeStop(
  link: ThreadLink,
  request: StopRequest,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const threadTs = link.anchor.threadTs;
  const ignored = (reason: string): RouteOutcome => ({ type: 'ignored', conversationId, reason });
  if (request.value !== undefined && request.value !== conversationId)
    return ignored(`Stop button for ${request.value.slice(0, 100)} on a message of ${conversationId}`);
  const conversation = await deps.store.getConversation(conversationId, { consistent: true });
  if (!conversation) return ignored('thread points at a missing conversation');
  const refuse = async (text: string, reason: string) => {
    await deps.stops.refused(request.channel, request.user, text, threadTs);
    return ignored(reason);
  };
  if (FINISHED_STATUSES.has(conversation.status))
    return refuse(
      `This conversation has already ended (${conversation.status}): there is nothing to stop.`,
      'stop after the end',
    );
  if (!(await mayStop(conversation, request.user, deps)))
    return refuse(
      'Only the people in this conversation (who started it, who took part, or a developer) can stop it.',
      `stop refused: ${request.user} is not in the conversation`,
    );
  // An open wait, or a step of the workflow between its turns (a build, a post): no turn runs,
  // so there is nothing to stop (an old timeline's button).
  if (conversation.wait !== undefined || !turnRunning(conversation, deps.clock.now()))
    return refuse(
      conversation.wait !== undefined
        ? 'Nothing is running in this conversation now, so there is nothing to stop. It goes on when someone writes in the thread.'
        : 'No agent is working in this conversation right now, so there is nothing to stop.',
      'stop while nothing runs',
    );
  await deps.store.requestStop(conversationId);
  await deps.stops.said({
    conversationId,
    channel: link.anchor.channel,
    threadTs,
    ts: request.ts,
    text: `:octagonal_sign: Stopped by <@${request.user}>: the work running now ends without an answer.`,
  });
  return { type: 'ignored', conversationId, reason: `turn stopped by ${request.user}` };
}

/** Who may stop: the one who started it, anyone who took part, or a configured developer. */
async function mayStop(
  conversation: { ownerId: string; participants: Record<string, string> },
  user: string,
  deps: RouterDeps,
): Promise<boolean> {
  if (user === conversation.ownerId || user in conversation.participants) return true;
  if (!deps.people.configures('developer')) return false;
  return deps.people.holds(user, 'developer');
}
