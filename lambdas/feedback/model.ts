import * as z from 'zod';
import { AnswerKind, FeedbackVote } from '../slack/templates/feedback.ts';

/**
 * A person's feedback on one answer, as stored with its conversation: one per person and
 * answer (a second press by the same person replaces the first), with the optional reason
 * given for a thumbs down.
 */
export const FeedbackRecord = z.object({
  conversationId: z.string().min(1),
  /** The conversation's workflow (`bug_investigation`, `channel_conversations`...). */
  workflow: z.string().min(1),
  answerKind: AnswerKind,
  channel: z.string().min(1),
  /** The answer's message. */
  messageTs: z.string().min(1),
  threadTs: z.string().min(1).optional(),
  /** The answer's text when it was pressed. */
  answerText: z.string(),
  /** The text that started the conversation. */
  request: z.string(),
  vote: FeedbackVote,
  reason: z.string().optional(),
  /** The Slack user who pressed. */
  by: z.string().min(1),
  /** When the Router took the press (ISO 8601). */
  at: z.string().min(1),
  /** The press's `action_ts`: a later press replaces an earlier one, never the reverse. */
  pressTs: z.string().min(1),
});
export type FeedbackRecord = z.infer<typeof FeedbackRecord>;

/** One line of `npm run feedback:export`: the shape the eval harness reads as a case. */
export const FeedbackExportLine = z.strictObject({
  kind: z.literal('feedback'),
  workflow: z.string(),
  conversationId: z.string(),
  answer: z.strictObject({ kind: AnswerKind, ts: z.string(), text: z.string() }),
  request: z.string(),
  vote: FeedbackVote,
  reason: z.string().optional(),
  by: z.string(),
  at: z.string(),
});
export type FeedbackExportLine = z.infer<typeof FeedbackExportLine>;

export function toExportLine(record: FeedbackRecord): FeedbackExportLine {
  return {
    kind: 'feedback',
    workflow: record.workflow,
    conversationId: record.conversationId,
    answer: { kind: record.answerKind, ts: record.messageTs, text: record.answerText },
    request: record.request,
    vote: record.vote,
    ...(record.reason ? { reason: record.reason } : {}),
    by: record.by,
    at: record.at,
  };
}

/** The metric names feedback is counted under (embedded metric format, the Router's service). */
export const FEEDBACK_METRIC = {
  up: 'FeedbackUp',
  down: 'FeedbackDown',
  /** A second press by the same person on the same answer, replacing the first. */
  replaced: 'FeedbackReplaced',
  reasons: 'FeedbackReasons',
} as const;
