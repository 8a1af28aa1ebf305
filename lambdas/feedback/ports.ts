import type { Clock } from '../kernel/ports.ts';
import type { AnswerKindLabels } from '../slack/templates/feedback.ts';
import type { FeedbackRecord } from './model.ts';
import type { FeedbackTarget } from './reason-form.ts';

/** The conversation an answer belongs to, as the feedback needs it. */
export interface AnswerConversation {
  conversationId: string;
  workflow: string;
  /** The text that started the conversation. */
  request: string;
}

export interface FeedbackStore {
  /**
   * Stores `record` as the feedback of its person on its answer, replacing an earlier press
   * of theirs; a press older than the one stored (a redelivery) changes nothing.
   */
  put(record: FeedbackRecord): Promise<'stored' | 'replaced' | 'stale'>;
  /** Sets the reason of a thumbs down; `not_found` when there is none by `by` (or it was changed to up). */
  setReason(target: FeedbackTarget, by: string, reason: string): Promise<'stored' | 'not_found'>;
  /** A conversation's feedback, oldest answer first. */
  list(conversationId: string): Promise<FeedbackRecord[]>;
  /** Every feedback given at or after `since` (ISO), for the export. */
  scan(since?: string): AsyncIterable<FeedbackRecord>;
}

/** Finds the conversation of the answer a press was on. */
export interface AnswerConversations {
  /**
   * By the thread the kernel recorded for it, or, for answers of conversations the kernel does
   * not record by thread (channel answers), by the id the feedback block names, checked
   * against the channel the press came from. `request` is the text the conversation began
   * with, or, where a conversation knows it, the question the answer answered.
   */
  find(where: {
    channel: string;
    threadTs: string;
    messageTs: string;
    conversationId?: string;
  }): Promise<AnswerConversation | undefined>;
}

/** What people see of their feedback, through Slack. */
export interface FeedbackSlack {
  /** A line only `user` sees, with blocks (an "Add a reason" button). */
  ephemeral(args: {
    channel: string;
    user: string;
    threadTs?: string;
    text: string;
    blocks?: Record<string, unknown>[];
  }): Promise<void>;
  /** Opens a modal; `expired` when the trigger id is no longer valid. */
  openView(triggerId: string, view: Record<string, unknown>): Promise<'opened' | 'expired'>;
}

export interface FeedbackDeps {
  /**
   * The answer kinds the deployed workflows declare (`answerKinds`), with how the
   * acknowledgement names each: a press on another kind is not stored.
   */
  answerKinds: AnswerKindLabels;
  store: FeedbackStore;
  conversations: AnswerConversations;
  slack: FeedbackSlack;
  clock: Clock;
  /** Counts a metric (FEEDBACK_METRIC). */
  count: (metric: string) => void;
  log: (message: string, detail: Record<string, unknown>) => void;
}
