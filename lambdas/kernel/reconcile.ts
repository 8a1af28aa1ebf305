import * as z from 'zod';
import type { Conversation } from './model.ts';
import type { Clock, ConversationStore, Executions } from './ports.ts';
import type { ExecutionInput } from './tasks.ts';
import { type WakeCheck, wakeIfDue } from './wake.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * The reconciler: a scheduled sweep for conversations the event path left
 * stuck, repaired or failed visibly:
 * - started but with no execution (the Router stored the conversation and its opening message,
 *   then could not start the execution until the inbox gave up): the execution is started;
 * - waiting with a message the wait accepts pending for longer than the threshold (the wake's
 *   `SendTaskSuccess` kept failing): the wait is woken.
 * A conversation that cannot be repaired after `maxRepairs` sweeps is marked failed and its
 * owner is told, in its thread. Each step is idempotent, so two sweeps at once do no harm:
 * the start is named after the conversation, and a second wake is "already woken".
 */
export const ReconcilerSettings = z.strictObject({
  /** A start or a pending message this old (seconds) without progress is repaired. @default 300 */
  olderThanSeconds: z.number().int().positive().default(300),
  /** Sweeps that try to repair one conversation before it is failed visibly. @default 3 */
  maxRepairs: z.number().int().min(1).max(100).default(3),
});
export type ReconcilerSettings = z.infer<typeof ReconcilerSettings>;
export type ReconcilerSettingsInput = z.input<typeof ReconcilerSettings>;

/** What the reconciler reads and writes beyond the kernel's store. */
export interface ReconcilerStore {
  /** Conversations still `starting` with no execution, created before `beforeIso`. */
  startingWithoutExecution(beforeIso: string): Promise<Conversation[]>;
  /** Conversations with an open wait registered before `beforeIso`. */
  waitingSince(beforeIso: string): Promise<Conversation[]>;
  /** Counts one more repair of the conversation; returns the count so far. */
  countRepair(conversationId: string): Promise<number>;
  /** Marks the conversation failed (status and phase), unless it finished meanwhile. */
  markFailed(conversationId: string, reason: string): Promise<void>;
}

/** Tells the conversation's owner, where the conversation is, that it failed. */
export type FailureNotifier = (
  conversation: Conversation,
  firstMessage: { channel: string; threadTs?: string },
) => Promise<void>;

export interface ReconcilerDeps {
  store: ConversationStore;
  reconciler: ReconcilerStore;
  executions: Executions;
  workflows: readonly WorkflowRegistration[];
  notify: FailureNotifier;
  clock: Clock;
  settings: ReconcilerSettings;
}

export type Repair =
  | { conversationId: string; kind: 'start'; outcome: 'started' | 'already_started' }
  | { conversationId: string; kind: 'wake'; outcome: WakeCheck['outcome'] }
  | {
      conversationId: string;
      kind: 'start' | 'wake';
      outcome: 'failed_visibly' | 'retry_later';
      error: string;
    };

/** One sweep: every stuck conversation found gets one repair attempt. */
export async function reconcile(deps: ReconcilerDeps): Promise<Repair[]> {
  const before = new Date(deps.clock.now().getTime() - deps.settings.olderThanSeconds * 1000).toISOString();
  const repairs: Repair[] = [];
  for (const conversation of await deps.reconciler.startingWithoutExecution(before)) {
    repairs.push(await attempt(deps, conversation, 'start', () => restart(deps, conversation)));
  }
  for (const conversation of await deps.reconciler.waitingSince(before)) {
    const pending = await deps.store.pendingMessages(conversation.id);
    // Only messages older than the threshold: a fresh one is still the Router's to deliver.
    if (!conversation.closeRequested && !pending.some((m) => m.receivedAt < before)) continue;
    repairs.push(await attempt(deps, conversation, 'wake', () => wake(deps, conversation.id)));
  }
  return repairs;
}

async function attempt(
  deps: ReconcilerDeps,
  conversation: Conversation,
  kind: 'start' | 'wake',
  repair: () => Promise<Repair>,
): Promise<Repair> {
  try {
    return await repair();
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const repairs = await deps.reconciler.countRepair(conversation.id);
    if (repairs < deps.settings.maxRepairs) {
      return { conversationId: conversation.id, kind, outcome: 'retry_later', error: message };
    }
    await deps.reconciler.markFailed(conversation.id, `${kind} kept failing: ${message}`);
    const first = (await deps.store.listMessages(conversation.id)).find((m) => m.senderType !== 'bot');
    if (first)
      await deps.notify(conversation, {
        channel: first.channel,
        ...(first.threadTs ? { threadTs: first.threadTs } : {}),
      });
    return { conversationId: conversation.id, kind, outcome: 'failed_visibly', error: message };
  }
}

/** Starts the execution the Router could not, with the input the Router would have given it. */
async function restart(deps: ReconcilerDeps, conversation: Conversation): Promise<Repair> {
  const registration = deps.workflows.find((w) => w.workflow === conversation.workflow);
  if (!registration) throw new Error(`no workflow ${conversation.workflow} is registered`);
  // The opening message is the conversation's first stored one (stored before the start).
  const first = (await deps.store.listMessages(conversation.id)).find((m) => m.senderType !== 'bot');
  if (!first) throw new Error('the opening message is not stored');
  const input: ExecutionInput = {
    conversationId: conversation.id,
    workflow: conversation.workflow,
    channel: first.channel,
    ...(first.threadTs ? { threadTs: first.threadTs } : {}),
    ownerId: conversation.ownerId,
    turn: 0,
  };
  const started = await deps.executions.start(registration.stateMachineArn, conversation.id, input);
  await deps.store.setExecution(conversation.id, conversation.id, started.executionArn);
  return { conversationId: conversation.id, kind: 'start', outcome: started.status };
}

async function wake(deps: ReconcilerDeps, conversationId: string): Promise<Repair> {
  const check = await wakeIfDue(deps, conversationId);
  return { conversationId, kind: 'wake', outcome: check.outcome };
}

/** What the owner reads when the reconciler gives up on their conversation. */
export const RECONCILER_FAILURE_TEXT =
  ":x: Sorry, I could not get this conversation going because of a problem on my side, and I've stopped trying. Please post it again in a little while.";
