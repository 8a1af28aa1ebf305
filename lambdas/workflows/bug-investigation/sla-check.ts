import * as z from 'zod';
import { ConversationNotFoundError } from '../../kernel/errors.ts';
import { type ConversationStatus, FINISHED_STATUSES, type StoredMessage } from '../../kernel/model.ts';
import type { ConversationStore } from '../../kernel/ports.ts';
import { Severity } from './contract.ts';

/**
 * The SlaTracking workflow's check (`SLATrackingWorkflow`): after each
 * acknowledgement deadline, has a developer answered since the escalation, or has the
 * conversation ended? Either one stops the reminders.
 */

/** A Slack message ts: seconds, a dot, microseconds (`1700000000.000100`). */
const SlackTs = z.string().regex(/^\d+\.\d+$/, 'expected a Slack ts such as 1700000000.000100');

/**
 * The input a SlaTracking execution starts with (written by the BugInvestigation escalation).
 * `threadTs` is the escalation post's ts: reminders go in its thread, and only developer
 * messages after it acknowledge the escalation.
 */
export const SlaTrackingInput = z.object({
  conversationId: z.string().min(1),
  /** The channel of the escalation post (the developers' channel). */
  channel: z.string().min(1),
  threadTs: SlackTs,
  severity: Severity,
  /** Reminders posted so far; an execution starts at 0. */
  level: z.number().int().nonnegative(),
});
export type SlaTrackingInput = z.infer<typeof SlaTrackingInput>;

export const SlaCheckInput = z.object({
  conversationId: z.string().min(1),
  /** The ts of the escalation post: only developer messages after it acknowledge it. */
  since: SlackTs,
});
export type SlaCheckInput = z.infer<typeof SlaCheckInput>;

/** What the check answers the state machine. */
interface SlaCheckOutput {
  /** A developer wrote in one of the conversation's threads after the escalation. */
  acknowledged: boolean;
  /** The conversation has ended, or its close was requested: nobody needs reminding. */
  closed: boolean;
  /** Why, in words, for the execution history. */
  reason: string;
}

/** Statuses after which a conversation needs no developer any more. */
const FINISHED: ReadonlySet<ConversationStatus> = FINISHED_STATUSES;

/**
 * The roles whose answer acknowledges an escalation. The Router gives them to members of the
 * configured groups only (lambdas/kernel/people.ts): anyone else replying in the escalation
 * thread is a participant, and their reply acknowledges nothing.
 */
/** The decision kind of the escalation's Acknowledge button (`slackAgents.approvals`). */
export const ACKNOWLEDGE_ESCALATION = 'acknowledge_escalation';

export const ACKNOWLEDGING_ROLES: ReadonlySet<string> = new Set(['developer', 'on_call']);

/**
 * Checks an escalation's acknowledgement. Reads consistently, so a developer reply stored
 * just before the check is seen and no needless reminder is posted.
 * @throws ConversationNotFoundError when no conversation has this id (terminal: the state
 *   machine does not retry it).
 */
export async function checkAcknowledgement(
  input: SlaCheckInput,
  deps: { store: ConversationStore },
): Promise<SlaCheckOutput> {
  const conversation = await deps.store.getConversation(input.conversationId, { consistent: true });
  if (!conversation) throw new ConversationNotFoundError(input.conversationId);
  const messages = await deps.store.listMessages(input.conversationId);
  // Any thread counts: developers may answer in the escalation thread, the summary thread
  // or wherever else the conversation is anchored; the stored sender type says who they are.
  const answer = messages.find(
    (message) => ACKNOWLEDGING_ROLES.has(message.senderType) && isAfter(message.ts, input.since),
  );
  // The Acknowledge button of this escalation (its message's ts is the thread's).
  const pressed = (conversation.decisions ?? []).find(
    (decision) => decision.kind === ACKNOWLEDGE_ESCALATION && decision.messageTs === input.since,
  );
  const closed = FINISHED.has(conversation.status) || conversation.closeRequested;
  if (pressed !== undefined) {
    return { acknowledged: true, closed, reason: `acknowledged by ${pressed.by} at ${pressed.at} (button)` };
  }
  return {
    acknowledged: answer !== undefined,
    closed,
    reason: reasonFor(answer, conversation.status, conversation.closeRequested, input.since),
  };
}

function reasonFor(
  answer: StoredMessage | undefined,
  status: ConversationStatus,
  closeRequested: boolean,
  since: string,
): string {
  if (answer) return `${answer.senderType} ${answer.senderId} answered at ${answer.ts}`;
  if (FINISHED.has(status)) return `conversation is ${status}`;
  if (closeRequested) return 'close requested';
  return `no developer message since ${since}`;
}

/**
 * Is Slack ts `a` later than `b`? Compared as numbers (whole seconds, then the fraction
 * padded to microseconds), not as strings, so a ts is not misordered by its length. A ts
 * that is not a Slack ts is never "later": it cannot prove an acknowledgement.
 */
function isAfter(a: string, b: string): boolean {
  const left = splitTs(a);
  const right = splitTs(b);
  if (left === undefined || right === undefined) return false;
  return left.seconds === right.seconds ? left.micros > right.micros : left.seconds > right.seconds;
}

const TS_PARTS = /^(\d+)(?:\.(\d+))?$/;

function splitTs(ts: string): { seconds: bigint; micros: bigint } | undefined {
  const match = TS_PARTS.exec(ts);
  if (match === null) return undefined;
  const [, seconds = '0', fraction = ''] = match;
  return { seconds: BigInt(seconds), micros: BigInt(fraction.padEnd(6, '0').slice(0, 6)) };
}
