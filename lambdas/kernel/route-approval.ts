import { decidedResult } from './approval-wait.ts';
import {
  APPROVAL_ACTION_ID,
  type DecisionRecord,
  judgePress,
  type OpenApproval,
  parseApprovalButton,
  placed,
} from './approvals.ts';
import type { InboxAction } from './inbox.ts';
import type { ThreadLink } from './ports.ts';
import { storeIncoming } from './route-store.ts';
import type { RouteOutcome, RouterDeps } from './route-types.ts';

export type { ApprovalDeps } from './route-types.ts';

/**
 * A press of an approval button: decides the approval open now if the presser may, and
 * tells them otherwise. A press is not a message for the agent: it is stored as the decision
 * (once, conditionally); a workflow waiting on the approval (a parked task token) is
 * completed with it, one that is not reads the decision when it needs it.
 */
export async function routeApprovalPress(
  envelope: InboxAction,
  link: ThreadLink,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const approvals = await deps.approvals();
  const value = parseApprovalButton(envelope.value);
  if (value === undefined) {
    return { type: 'ignored', conversationId, reason: 'approval button whose value is not an approval' };
  }
  const where = { channel: envelope.channel, messageTs: envelope.messageTs, threadTs: envelope.threadTs };
  const conversation = await deps.store.getConversation(conversationId, { consistent: true });
  if (!conversation)
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  const open: Record<string, OpenApproval> = conversation.approvals ?? {};
  const current = open[value.kind];
  // A redelivery of the press that decided (same action_ts): finish what it began (the wake-up,
  // the message, the thread line), each idempotent.
  let decided: { approval: OpenApproval; record: DecisionRecord; detail: string } | undefined =
    current?.decided !== undefined &&
    current.nonce === value.nonce &&
    current.decided.pressTs === envelope.ts &&
    current.decided.by === envelope.user
      ? { approval: current, record: current.decided, detail: 'redelivered press' }
      : undefined;
  if (decided === undefined) {
    const press = { user: envelope.user, ts: envelope.ts, messageTs: envelope.messageTs, value };
    const verdict = await judgePress(press, open, {
      approvals: approvals.rules,
      people: deps.people,
      clock: deps.clock,
    });
    if (verdict.type === 'refuse') {
      await approvals.notices.refused(
        envelope.channel,
        envelope.user,
        verdict.explanation,
        envelope.threadTs,
      );
      return { type: 'approval', conversationId, outcome: 'refused', detail: verdict.reason };
    }
    const written = await approvals.store.decide(conversationId, verdict.record);
    if (written.type === 'lost') {
      // Another press, or the wait's expiry, came between the read and the write.
      const after = await deps.store.getConversation(conversationId, { consistent: true });
      const lost = after?.approvals?.[value.kind];
      const text =
        lost?.decided !== undefined
          ? `This was already decided: ${lost.decided.decision} by <@${lost.decided.by}> at ${lost.decided.at}.`
          : lost?.expiredAt !== undefined && lost.nonce === value.nonce
            ? `This request expired at ${lost.expiredAt} with no decision, so your press changed nothing.`
            : 'This button is no longer current: it belongs to an earlier request.';
      await approvals.notices.refused(envelope.channel, envelope.user, text, envelope.threadTs);
      return {
        type: 'approval',
        conversationId,
        outcome: 'refused',
        detail: 'lost to another press or the expiry',
      };
    }
    // The approval as the decision wrote it: a wait parked at any time before has its token here.
    decided = {
      approval: written.approval,
      record: verdict.record,
      detail: `${value.kind}: ${value.decision}`,
    };
  }
  // Completes the parked wait with the decision, once: `woken` is noted after, so a redelivered
  // press sends again only if the first delivery failed before noting it. A task already over
  // (timed out, or woken by the park step) is a logged ignore: the decision stays recorded.
  const token = decided.approval.woken === true ? undefined : decided.approval.taskToken;
  const wait =
    token === undefined ? 'none' : await approvals.tasks.complete(token, decidedResult(decided.record));
  if (token !== undefined)
    await approvals.store.markWoken(conversationId, {
      kind: decided.approval.kind,
      nonce: decided.approval.nonce,
    });
  // A decision its approval asks to deliver (`deliverAsMessage`) is stored as a message of the
  // conversation from the presser, keyed by the press's own ts: a redelivered press stores it
  // once (the message's conditional put), and the message wakes the conversation's wait as any
  // other does (kernel/wake.ts). Its role is the thread's, verified like a message's.
  if (decided.approval.deliverAsMessage === true)
    await storeIncoming(
      link,
      {
        kind: 'action',
        user: decided.record.by,
        channel: envelope.channel,
        ts: decided.record.pressTs,
        text: `[pressed: ${decided.record.kind} ${decided.record.decision}]`,
        receivedAt: decided.record.at,
        closable: false,
        actionId: APPROVAL_ACTION_ID,
        actionValue: envelope.value ?? '',
      },
      deps,
    );
  await approvals.notices.decided(conversationId, placed(decided.approval, where), decided.record);
  return { type: 'approval', conversationId, outcome: 'decided', detail: decided.detail, wait };
}
