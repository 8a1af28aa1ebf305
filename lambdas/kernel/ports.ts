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
  /** Stops the turn running now (the Stop button, `stop`): notes when, and nothing else. */
  requestStop(conversationId: string): Promise<void>;
  addParticipant(conversationId: string, userId: string, role: StoredMessage['senderType']): Promise<void>;
  setExecution(conversationId: string, executionName: string, executionArn: string): Promise<void>;
  /**
   * The Router's read after its write, in one request: the conversation (its open
   * wait, its status) and the message just stored (still pending or not), strongly consistent.
   */
  readAfterStore(message: StoredMessage): Promise<StoredAndConversation>;
  /** Deletes a message that no turn took (stored for a conversation found ended): `delivered` if one did. */
  withdrawMessage(message: StoredMessage): Promise<'withdrawn' | 'delivered'>;
  /**
   * Sets the phase (and the status, when given) of the conversation and opens the wait, and
   * returns the conversation as that write left it, in the same request.
   */
  openWait(conversationId: string, wait: OpenWait, phase: string, status?: string): Promise<Conversation>;
  /**
   * Drain's write on the conversation, in one request: removes the open wait (it has ended),
   * sets the fields of `mark`, adds `ledger`, and returns the conversation after that.
   */
  endWait(
    conversationId: string,
    options?: { mark?: ConversationMark; ledger?: Partial<Ledger> },
  ): Promise<Conversation>;
  /** Removes the open wait, only if it is still the one with `waitId` (when given). */
  clearWait(conversationId: string, waitId?: string): Promise<void>;
  addToLedger(conversationId: string, delta: Partial<Ledger>): Promise<void>;
}

/** What the Router's `readAfterStore` found: either may be missing. */
export interface StoredAndConversation {
  conversation: Conversation | undefined;
  message: StoredMessage | undefined;
}

/** A status and/or phase a task sets on the conversation as it goes (e.g. Drain's `investigating`). */
export interface ConversationMark {
  status?: string | undefined;
  phase?: string | undefined;
}

export type StartResult = { status: 'started' | 'already_started'; executionArn: string };
export type WakeResult = 'woken' | 'already_woken';

export interface Executions {
  /** Starts an execution; `already_started` when one with that name exists (a redelivered start). */
  start(stateMachineArn: string, name: string, input: unknown): Promise<StartResult>;
  /** SendTaskSuccess; `already_woken` when the task already ended (TaskTimedOut / InvalidToken). */
  wake(taskToken: string, output: WakeOutput): Promise<WakeResult>;
}

export { type Clock, systemClock } from './clock.ts';

/** What became of a message no workflow and no thread owns (see `UnownedMessageHandler`). */
export type UnownedOutcome =
  | { type: 'ignored'; reason: string }
  | { type: 'recorded'; conversationId: string; started: boolean; stored: 'stored' | 'duplicate' };

/**
 * What takes the messages no workflow and no thread owns, in channels no workflow owns (the
 * Router's `unownedMessages` addition): channel conversations record them and answer outside
 * Step Functions.
 */
export type UnownedMessageHandler = (message: InboxMessage) => Promise<UnownedOutcome>;
