import type { InboxMessage } from './inbox.ts';
import type { Conversation, Ledger, OpenWait, StoredMessage, ThreadAnchor } from './model.ts';
import type { WakeOutput } from './tasks.ts';

/**
 * The kernel's seams. Domain modules depend on these interfaces; adapters implement them
 * over DynamoDB and Step Functions, and tests hand in the real adapters against dynalite
 * and the sandbox, or fakes.
 */

export interface ThreadLink {
  conversationId: string;
  ownerId: string;
  anchor: ThreadAnchor;
}

export interface ConversationStore {
  getConversation(
    conversationId: string,
    options?: { consistent?: boolean },
  ): Promise<Conversation | undefined>;
  /** Conditional create: `exists` when a conversation with this id is already stored. */
  createConversation(conversation: Conversation): Promise<'created' | 'exists'>;
  findThread(channel: string, threadTs: string): Promise<ThreadLink | undefined>;
  /** Maps a Slack thread to its conversation and appends the anchor to the conversation, idempotently. */
  linkThread(link: ThreadLink): Promise<void>;
  /** Conditional put on the message key (I1): `duplicate` when that Slack message is already stored. */
  putMessage(message: StoredMessage): Promise<'stored' | 'duplicate'>;
  /** Messages not yet handed to a turn, plus those handed to `includeTurn` (a retried Drain), in ts order. Strongly consistent. */
  pendingMessages(conversationId: string, options?: { includeTurn?: number }): Promise<StoredMessage[]>;
  /** All messages in ts order (the history tool, tests). */
  listMessages(conversationId: string): Promise<StoredMessage[]>;
  /** Marks a pending message delivered in `turn`; `taken` if another turn already has it. */
  markDelivered(message: StoredMessage, turn: number): Promise<'marked' | 'taken'>;
  requestClose(conversationId: string): Promise<void>;
  addParticipant(conversationId: string, userId: string, role: StoredMessage['senderType']): Promise<void>;
  setExecution(conversationId: string, executionName: string, executionArn: string): Promise<void>;
  openWait(conversationId: string, wait: OpenWait, phase: string): Promise<void>;
  /** Removes the open wait, only if it is still the one with `waitId` (when given). */
  clearWait(conversationId: string, waitId?: string): Promise<void>;
  addToLedger(conversationId: string, delta: Partial<Ledger>): Promise<void>;
}

export type StartResult = { status: 'started' | 'already_started'; executionArn: string };
export type WakeResult = 'woken' | 'already_woken';

export interface Executions {
  /** Starts an execution; `already_started` when one with that name exists (a redelivered start). */
  start(stateMachineArn: string, name: string, input: unknown): Promise<StartResult>;
  /** SendTaskSuccess; `already_woken` when the task already ended (TaskTimedOut / InvalidToken). */
  wake(taskToken: string, output: WakeOutput): Promise<WakeResult>;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What became of a message no workflow and no thread owns (see `UnownedMessageHandler`). */
export type UnownedOutcome =
  | { type: 'ignored'; reason: string }
  | { type: 'recorded'; conversationId: string; started: boolean; stored: 'stored' | 'duplicate' };

/**
 * The Router's hook for messages no workflow and no thread owns, in channels no workflow owns:
 * channel conversations (seed 002) record them and answer outside Step Functions.
 */
export type UnownedMessageHandler = (message: InboxMessage) => Promise<UnownedOutcome>;
