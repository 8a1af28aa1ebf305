import {
  type ApprovalNotices,
  type ApprovalStore,
  judgePress,
  type OpenApproval,
  parseApprovalButton,
} from './approvals.ts';
import type { InboxAction } from './inbox.ts';
import { type Approvals, PeopleDirectory } from './people.ts';
import type { ThreadLink } from './ports.ts';
import type { RouteOutcome, RouterDeps } from './route-steps.ts';

/** What the Router needs to take approval presses (kernel/approvals.ts). */
export interface ApprovalDeps {
  /** Who may decide what (`slackAgents.approvals`). */
  rules: Approvals;
  store: ApprovalStore;
  notices: ApprovalNotices;
}

/**
 * A press of an approval button: decides the approval open now if the presser may, and
 * tells them otherwise. A press is not a message for the agent: it is stored as the decision
 * (once, conditionally) and wakes no wait; the workflow reads the decision.
 */
export async function routeApprovalPress(
  envelope: InboxAction,
  link: ThreadLink,
  deps: RouterDeps & { approvals?: ApprovalDeps },
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const { approvals } = deps;
  if (approvals === undefined) {
    return { type: 'ignored', conversationId, reason: 'approval press, but approvals are not wired here' };
  }
  const value = parseApprovalButton(envelope.value);
  if (value === undefined) {
    return { type: 'ignored', conversationId, reason: 'approval button whose value is not an approval' };
  }
  const conversation = await deps.store.getConversation(conversationId, { consistent: true });
  if (!conversation)
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  const open: Record<string, OpenApproval> = conversation.approvals ?? {};
  const current = open[value.kind];
  // A redelivery of the press that decided (same action_ts): tell the outcome again, idempotently.
  if (
    current?.decided !== undefined &&
    current.decided.pressTs === envelope.ts &&
    current.decided.by === envelope.user
  ) {
    await approvals.notices.decided(current, current.decided, { announce: false });
    return { type: 'approval', conversationId, outcome: 'decided', detail: 'redelivered press' };
  }
  const people = deps.people ?? new PeopleDirectory({}, { members: async () => [] }, deps.clock);
  const verdict = await judgePress({ user: envelope.user, ts: envelope.ts, value }, open, {
    approvals: approvals.rules,
    people,
    clock: deps.clock,
  });
  if (verdict.type === 'refuse') {
    await approvals.notices.refused(envelope.channel, envelope.user, verdict.explanation, envelope.threadTs);
    return { type: 'approval', conversationId, outcome: 'refused', detail: verdict.reason };
  }
  const written = await approvals.store.decide(conversationId, verdict.record);
  if (written === 'lost') {
    // Another press decided between the read and the write: this one is the second.
    const after = (await deps.store.getConversation(conversationId, { consistent: true }))?.approvals?.[
      value.kind
    ];
    const by = after?.decided;
    const text =
      by === undefined
        ? 'This button is no longer current: it belongs to an earlier request.'
        : `This was already decided: ${by.decision} by <@${by.by}> at ${by.at}.`;
    await approvals.notices.refused(envelope.channel, envelope.user, text, envelope.threadTs);
    return { type: 'approval', conversationId, outcome: 'refused', detail: 'lost to another press' };
  }
  await approvals.notices.decided(verdict.approval, verdict.record, { announce: true });
  return { type: 'approval', conversationId, outcome: 'decided', detail: `${value.kind}: ${value.decision}` };
}
