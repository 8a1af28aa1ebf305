import { isApprovalAction } from './approvals.ts';
import type { InboxAction } from './inbox.ts';
import { routeApprovalPress } from './route-approval.ts';
import { storeIncoming } from './route-store.ts';
import { partOf, type Routed, type RouterDeps } from './route-types.ts';
import { routeStop, STOP_ACTION_ID } from './stop.ts';

/**
 * A button press, on a message of the conversation that owns its thread: an approval's button
 * decides the approval, the Stop button stops the turn, and any other press is stored as an
 * action of the conversation, which may wake it.
 */
export async function routeAction(envelope: InboxAction, deps: RouterDeps): Promise<Routed> {
  const approval = isApprovalAction(envelope.actionId);
  const stop = envelope.actionId === STOP_ACTION_ID;
  const sent = { user: envelope.user, channel: envelope.channel, ts: envelope.ts };
  const incoming = {
    kind: 'action',
    ...sent,
    text: `[button ${envelope.actionId}] ${envelope.value ?? ''}`.trim(),
    receivedAt: envelope.receivedAt,
    closable: false,
    actionId: envelope.actionId,
    ...(envelope.value !== undefined ? { actionValue: envelope.value } : {}),
  } as const;
  const link = await deps.store.findThread(envelope.channel, envelope.threadTs ?? envelope.messageTs);
  if (!link)
    return { type: 'ignored', reason: `action ${envelope.actionId} on a message no conversation owns` };
  return partOf(link.conversationId, deps, () => {
    if (approval) return routeApprovalPress(envelope, link, deps);
    if (stop) return routeStop(link, { ...sent, value: envelope.value ?? '' }, deps);
    return storeIncoming(link, incoming, deps);
  });
}
