import * as z from 'zod';
import type { Clock } from './clock.ts';
import { decisionEmoji, decisionSentence, slackTime } from './decision-text.ts';
import type { Approvals, PeopleDirectory } from './people.ts';

/**
 * Approvals: a workflow posts Block Kit buttons for a decision kind
 * (`acknowledge_escalation`) and the people configuration says who may press them
 * (`slackAgents.approvals`: kind -> roles). Each kind has at most one approval open per
 * conversation, keyed by the kind (the conversation's `approvals` map), so it never takes the
 * conversation's one wait slot: the bug investigation's 48-hour wait for developers and SLA
 * tracking's acknowledgement are open at once. A button carries the approval's nonce: a
 * button of an earlier approval of that kind is stale.
 */

/** A decision kind or a decision (lower snake case), as in `slackAgents.approvals`. */
const Name = z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a name such as acknowledge_escalation');

/** What a button's `value` carries: the approval's nonce and the decision it stands for. */
export const ApprovalButtonValue = z.strictObject({
  /** The approval's nonce: the button belongs to that approval only. */
  nonce: z.string().min(8).max(80),
  /** The decision kind (`acknowledge_escalation`). */
  kind: Name,
  /** The decision itself (`acknowledge`, `approve`, `reject`...). */
  decision: Name,
});
export type ApprovalButtonValue = z.infer<typeof ApprovalButtonValue>;

/** The `action_id` of every approval button: the Router knows a press by it. */
export const APPROVAL_ACTION_ID = 'approval_decision';

/** A button's value for `decision` of the approval with `nonce` (Slack allows 2,000 characters). */
export function approvalButtonValue(value: ApprovalButtonValue): string {
  return JSON.stringify(ApprovalButtonValue.parse(value));
}

/** The approval a pressed button stands for, or undefined when the value is not one of ours. */
export function parseApprovalButton(value: string | undefined): ApprovalButtonValue | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = ApprovalButtonValue.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A decision taken: kept on the conversation (`decisions`) for audit. */
export const DecisionRecord = z.object({
  kind: Name,
  decision: Name,
  /** The Slack user who pressed the button. */
  by: z.string().min(1),
  /** When the Router took the press (ISO 8601). */
  at: z.string().min(1),
  nonce: z.string().min(1),
  /** The press's `action_ts`: a redelivered press has the same, a second press another. */
  pressTs: z.string().min(1),
  /** The message whose buttons were pressed (an escalation's ts, for SLA tracking). */
  messageTs: z.string().min(1),
});
export type DecisionRecord = z.infer<typeof DecisionRecord>;

/** The approval open now for a kind: the message its buttons are in, and its decision once taken. */
export const OpenApproval = z.object({
  nonce: z.string().min(8),
  kind: Name,
  /** The decisions its buttons offer. */
  choices: z.array(Name).min(1),
  /**
   * Where the buttons are (for `chat.update`). Absent between the approval's opening and
   * Slack's answer to the post: SlackPost opens it first, so a press right after the post
   * finds it open (a press carries its message's channel and ts anyway).
   */
  channel: z.string().min(1).optional(),
  messageTs: z.string().min(1).optional(),
  /** The root of the message's thread (its own ts for a top-level message): where lines about it go. */
  threadTs: z.string().min(1).optional(),
  /** The message's text: what stays in it once its buttons are replaced by the decision. */
  text: z.string(),
  openedAt: z.string().min(1),
  decided: DecisionRecord.optional(),
  /**
   * The task token of the workflow waiting for the decision (statemachines/approval-wait.ts):
   * the Router completes it with the decision. Absent for an approval nobody waits on.
   */
  taskToken: z.string().min(1).optional(),
  /** Set once the waiting task was completed (or found ended), so a redelivered press sends nothing. */
  woken: z.boolean().optional(),
  /** When the wait ran out with no decision: later presses are told it expired. */
  expiredAt: z.string().min(1).optional(),
  /** The decision is handed to the conversation as a message (`ApprovalRequest.deliverAsMessage`). */
  deliverAsMessage: z.boolean().optional(),
});
export type OpenApproval = z.infer<typeof OpenApproval>;

/** A post's approval: its kind and the buttons it offers (SlackPost appends them and opens it). */
export const ApprovalRequest = z.object({
  kind: Name,
  buttons: z
    .array(
      z.object({
        decision: Name,
        label: z.string().min(1).max(75),
        style: z.enum(['primary', 'danger']).optional(),
      }),
    )
    .min(1)
    .max(5),
  /**
   * Hand the decision to the conversation as a message from the presser (an `action` message,
   * `actionId` APPROVAL_ACTION_ID), for an approval no task waits on: the message wakes the
   * conversation's wait like any other, and its turn sees the decision (the bug workflow's
   * "Fix it" on its findings). Only the press that decides is delivered; refused presses are not.
   * @default false
   */
  deliverAsMessage: z.boolean().optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/** The Block Kit actions block of an approval's buttons. */
export function approvalBlock(request: ApprovalRequest, nonce: string): Record<string, unknown> {
  return {
    type: 'actions',
    block_id: `approval:${request.kind}`,
    elements: request.buttons.map((button, index) => ({
      type: 'button',
      // Unique within the block, as Slack requires; the Router knows a press by the prefix.
      action_id: index === 0 ? APPROVAL_ACTION_ID : `${APPROVAL_ACTION_ID}:${index}`,
      text: { type: 'plain_text', text: button.label },
      value: approvalButtonValue({ nonce, kind: request.kind, decision: button.decision }),
      ...(button.style === undefined ? {} : { style: button.style }),
    })),
  };
}

/** Whether an action id is an approval button's. */
export function isApprovalAction(actionId: string): boolean {
  return actionId === APPROVAL_ACTION_ID || actionId.startsWith(`${APPROVAL_ACTION_ID}:`);
}

/** A button press, as the Router has it from the inbox. */
export interface Press {
  user: string;
  /** Slack's `action_ts` of the press. */
  ts: string;
  /** The message holding the pressed button. */
  messageTs: string;
  value: ApprovalButtonValue;
}

/** Why a press changed nothing. */
export type RefusalReason = 'stale' | 'already_decided' | 'expired' | 'unauthorized';

export type PressVerdict =
  | { type: 'decide'; approval: OpenApproval; record: DecisionRecord }
  | { type: 'refuse'; reason: RefusalReason; explanation: string };

/**
 * Judges a press against the conversation's open approvals and the configuration. Only a
 * press of the approval open now (its nonce), not yet decided, by a holder of one of the
 * kind's roles decides; anything else is refused with words for the presser.
 */
export async function judgePress(
  press: Press,
  open: Readonly<Record<string, OpenApproval>>,
  deps: { approvals: Approvals; people: PeopleDirectory; clock: Clock },
): Promise<PressVerdict> {
  const { value } = press;
  const approval = open[value.kind];
  if (
    approval === undefined ||
    approval.nonce !== value.nonce ||
    !approval.choices.includes(value.decision)
  ) {
    return {
      type: 'refuse',
      reason: 'stale',
      explanation:
        'This button is no longer current: it belongs to an earlier request. Use the latest message.',
    };
  }
  if (approval.decided !== undefined) {
    const { decided } = approval;
    return {
      type: 'refuse',
      reason: 'already_decided',
      explanation: `This was already decided: ${decisionSentence(decided)}.`,
    };
  }
  if (approval.expiredAt !== undefined) {
    return {
      type: 'refuse',
      reason: 'expired',
      explanation: `This request expired at ${slackTime(approval.expiredAt)} with no decision, so your press changed nothing.`,
    };
  }
  const roles = deps.approvals[value.kind] ?? [];
  if (!(await holdsAny(deps.people, press.user, roles))) {
    return {
      type: 'refuse',
      reason: 'unauthorized',
      explanation:
        roles.length === 0
          ? `Nobody is configured to decide ${value.kind}, so your press changed nothing.`
          : `Only ${roles.join(' or ')} may decide ${value.kind}, so your press changed nothing.`,
    };
  }
  const record: DecisionRecord = {
    kind: value.kind,
    decision: value.decision,
    by: press.user,
    at: deps.clock.now().toISOString(),
    nonce: value.nonce,
    pressTs: press.ts,
    messageTs: approval.messageTs ?? press.messageTs,
  };
  return { type: 'decide', approval, record };
}

async function holdsAny(people: PeopleDirectory, user: string, roles: readonly string[]): Promise<boolean> {
  for (const role of roles) if (await people.holds(user, role)) return true;
  return false;
}

/** The words that replace the buttons once decided: who, what, when. */
export function decidedText(record: DecisionRecord): string {
  return `${decisionEmoji(record.decision)} ${decisionSentence(record)}`;
}

/** Which approval: its kind and its nonce. */
export interface ApprovalRef {
  kind: string;
  nonce: string;
}

/** The words that replace the buttons when nobody decided in time. */
export function expiredText(at: string): string {
  return `:hourglass: Expired: nobody decided by ${slackTime(at)}.`;
}

/** Where approvals and their decisions are kept (the conversation's record). */
export interface ApprovalStore {
  /**
   * Opens (or replaces) the approval of its kind; a button of the replaced one is stale from
   * now on. Opening again the same approval (a retried post) keeps its decision and its wait.
   */
  openApproval(conversationId: string, approval: OpenApproval): Promise<void>;
  /** Notes where the approval's buttons were posted, if it is still the one open. */
  placeApproval(
    conversationId: string,
    ref: ApprovalRef,
    where: { channel: string; messageTs: string; threadTs: string },
  ): Promise<void>;
  /**
   * Parks a waiting task's token on the approval (a retried task's new token replaces the
   * old one) and returns the approval as written; undefined when it is no longer the one open.
   */
  parkWait(conversationId: string, ref: ApprovalRef, taskToken: string): Promise<OpenApproval | undefined>;
  /** Notes that the waiting task was completed, so a redelivered press does not complete it again. */
  markWoken(conversationId: string, ref: ApprovalRef): Promise<void>;
  /**
   * Marks the approval expired if it is still open and undecided (conditional); otherwise
   * returns it as it is (decided by a press that won the race), or undefined when replaced.
   */
  expire(
    conversationId: string,
    ref: ApprovalRef,
    at: string,
  ): Promise<
    { type: 'expired'; approval: OpenApproval } | { type: 'not_open'; approval: OpenApproval | undefined }
  >;
  /**
   * Records the decision if that approval is still open, undecided and not expired
   * (conditional), and appends it to the conversation's `decisions`; returns the approval as
   * written (with the token of a wait parked on it). `lost` when another press or the expiry won.
   */
  decide(
    conversationId: string,
    record: DecisionRecord,
  ): Promise<{ type: 'decided'; approval: OpenApproval } | { type: 'lost' }>;
}

/** What people see after a press: the message updated, a line in the thread, or an ephemeral. */
export interface ApprovalNotices {
  /**
   * `chat.update`: the buttons replaced by the decision, and a line in the message's thread.
   * Called again for a redelivered press, so both are idempotent (the line goes through
   * SlackPost's ledger, keyed by the approval's nonce: posted once).
   */
  decided(conversationId: string, approval: PlacedApproval, record: DecisionRecord): Promise<void>;
  /** `chat.postEphemeral` to the presser. */
  refused(channel: string, user: string, text: string, threadTs?: string): Promise<void>;
  /** `chat.update`: the buttons replaced by "no decision by <time>". */
  expired(approval: PlacedApproval, at: string): Promise<void>;
}

/** An approval whose message is known. */
export type PlacedApproval = OpenApproval & { channel: string; messageTs: string };

/** The message's place once posted: a press brings it when the approval was opened before the post's answer. */
export function placed(
  approval: OpenApproval,
  where: { channel: string; messageTs: string; threadTs?: string | undefined },
): PlacedApproval {
  const threadTs = approval.threadTs ?? where.threadTs;
  return {
    ...approval,
    channel: approval.channel ?? where.channel,
    messageTs: approval.messageTs ?? where.messageTs,
    ...(threadTs === undefined ? {} : { threadTs }),
  };
}
