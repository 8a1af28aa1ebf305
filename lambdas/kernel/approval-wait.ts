import * as z from 'zod';
import {
  type ApprovalNotices,
  type ApprovalStore,
  type DecisionRecord,
  type OpenApproval,
  placed,
} from './approvals.ts';
import { ApprovalNotOpenError } from './errors.ts';
import type { Clock } from './ports.ts';

/**
 * The approval wait's two steps (statemachines/approval-wait.ts): `park` is the
 * `.waitForTaskToken` task that parks the token on the approval SlackPost just opened; the
 * Router completes it with the decision (kernel/route-approval.ts). `expire` runs when the
 * wait's TimeoutSeconds ran out. Each side writes before it reads, on the one conversation
 * item, so a decision taken at any moment around the park or the timeout is never lost.
 */

const Name = z.string().regex(/^[a-z][a-z0-9_]*$/);

/** What an approval wait yields at the caller's result path. */
export const ApprovalWaitResult = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('decided'),
    kind: Name,
    decision: Name,
    /** The Slack user who decided. */
    by: z.string().min(1),
    /** When the Router took the press (ISO 8601). */
    at: z.string().min(1),
  }),
  z.object({
    outcome: z.literal('expired'),
    kind: Name,
    /** When the wait was found without a decision (ISO 8601). */
    at: z.string().min(1),
  }),
]);
export type ApprovalWaitResult = z.infer<typeof ApprovalWaitResult>;

const Ref = {
  conversationId: z.string().min(1),
  kind: Name,
  nonce: z.string().min(8),
};

/** The ApprovalWait function's input: which step, for which approval. */
export const ApprovalWaitInput = z.discriminatedUnion('step', [
  z.object({ step: z.literal('park'), ...Ref, taskToken: z.string().min(1) }),
  z.object({ step: z.literal('expire'), ...Ref }),
]);
export type ApprovalWaitInput = z.infer<typeof ApprovalWaitInput>;

/** The decision as the waiting workflow gets it. */
export function decidedResult(record: DecisionRecord): ApprovalWaitResult {
  return { outcome: 'decided', kind: record.kind, decision: record.decision, by: record.by, at: record.at };
}

/** Completes a waiting task (Step Functions' SendTaskSuccess). */
export interface TaskCompleter {
  /** `already_ended` when the task is over (TaskTimedOut, TaskDoesNotExist, InvalidToken). */
  complete(taskToken: string, output: unknown): Promise<'completed' | 'already_ended'>;
}

export interface ApprovalWaitDeps {
  store: ApprovalStore;
  tasks: TaskCompleter;
  notices: ApprovalNotices;
  clock: Clock;
  /** Where deliberate ignores are told (a Slack message gone, a task already over). */
  warn: (message: string, details: Record<string, unknown>) => void;
}

export type ParkOutcome = { type: 'parked' } | { type: 'decided_before'; completed: boolean };

/**
 * Parks the task token on the approval (write), then looks at what it wrote over (read, in
 * the same conditional update): a press decided in the moment between the post and this
 * step is completed here, since the Router found no token to complete then.
 */
export async function parkApprovalWait(
  input: Extract<ApprovalWaitInput, { step: 'park' }>,
  deps: Pick<ApprovalWaitDeps, 'store' | 'tasks' | 'warn'>,
): Promise<ParkOutcome> {
  const ref = { kind: input.kind, nonce: input.nonce };
  const approval = await deps.store.parkWait(input.conversationId, ref, input.taskToken);
  if (approval === undefined) throw new ApprovalNotOpenError(input.conversationId, input.kind);
  if (approval.decided === undefined) return { type: 'parked' };
  const sent = await deps.tasks.complete(input.taskToken, decidedResult(approval.decided));
  if (sent === 'already_ended') deps.warn('the approval wait was over before its decision', { ...ref });
  await deps.store.markWoken(input.conversationId, ref);
  return { type: 'decided_before', completed: sent === 'completed' };
}

/**
 * The wait ran out: marks the approval expired unless a press decided it first (then the
 * decision is the result: it was taken in time, only its wake-up came late), and replaces
 * the buttons with "no decision by <time>".
 */
export async function expireApprovalWait(
  input: Extract<ApprovalWaitInput, { step: 'expire' }>,
  deps: Pick<ApprovalWaitDeps, 'store' | 'notices' | 'clock' | 'warn'>,
): Promise<ApprovalWaitResult> {
  const ref = { kind: input.kind, nonce: input.nonce };
  const now = deps.clock.now().toISOString();
  const outcome = await deps.store.expire(input.conversationId, ref, now);
  if (outcome.type === 'not_open') {
    if (outcome.approval?.decided) return decidedResult(outcome.approval.decided);
    // Replaced by a later approval of its kind: this one can no longer be decided.
    deps.warn('the expiring approval was replaced by a later one', { ...ref });
    return { outcome: 'expired', kind: input.kind, at: now };
  }
  const at = outcome.approval.expiredAt ?? now;
  await updateExpiredMessage(outcome.approval, at, deps);
  return { outcome: 'expired', kind: input.kind, at };
}

async function updateExpiredMessage(
  approval: OpenApproval,
  at: string,
  deps: Pick<ApprovalWaitDeps, 'notices' | 'warn'>,
): Promise<void> {
  const { channel, messageTs } = approval;
  if (channel === undefined || messageTs === undefined) {
    deps.warn('the expired approval has no message to update', { kind: approval.kind });
    return;
  }
  try {
    await deps.notices.expired(placed(approval, { channel, messageTs }), at);
  } catch (error) {
    // Slack unreachable is retried by the state machine; a refusal (the message deleted)
    // cannot be fixed by retrying, and the wait's outcome stands without the update.
    if ((error as { name?: string }).name !== 'SlackApiError') throw error;
    deps.warn('could not mark the expired approval in its message', { kind: approval.kind, error });
  }
}
