import * as z from 'zod';

/**
 * The inbox records of Slack's app surfaces, beside conversations' messages: a press of an
 * answer's feedback buttons, the reason a person gives for a thumbs down (a modal's
 * submission), the App Home opened, and an assistant thread started. The Router hands them
 * to its surface addition (lambdas/handlers/surfaces.ts); they start and wake no workflow.
 */

const MAX_ID_CHARS = 255;
const Id = z.string().min(1).max(MAX_ID_CHARS);
/** Slack's message text can be long; what the feedback keeps of an answer is bounded. */
export const MAX_ANSWER_TEXT_CHARS = 8_000;

const Common = {
  /** The payload's trigger id or event id: the SQS deduplication id. */
  eventId: Id,
  teamId: z.string().max(MAX_ID_CHARS).optional(),
  user: Id,
  receivedAt: z.string(),
  ts: Id,
};

/** A press of an answer's feedback buttons. */
export const FeedbackPress = z.object({
  kind: z.literal('surface'),
  surface: z.literal('feedback_press'),
  ...Common,
  channel: Id,
  /** The answer's message, and its thread. */
  messageTs: Id,
  threadTs: Id.optional(),
  vote: z.enum(['up', 'down']),
  /** Lower snake case: one of the kinds the deployed workflows declare (the Router checks it). */
  answerKind: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9_]*$/),
  /** The conversation the block names (answers the kernel does not record by thread). */
  conversationId: Id.optional(),
  /** The answer's text as Slack sent it with the press. */
  answerText: z.string().max(MAX_ANSWER_TEXT_CHARS),
  /** For opening the reason form (`views.open`), valid for three seconds. */
  triggerId: Id.optional(),
});
export type FeedbackPress = z.infer<typeof FeedbackPress>;

/** "Add a reason" pressed on the acknowledgement of a thumbs down: open the form again. */
export const FeedbackReasonRequest = z.object({
  kind: z.literal('surface'),
  surface: z.literal('feedback_reason_request'),
  ...Common,
  channel: Id,
  /** The feedback the reason is for (the button's value). */
  target: z.string().min(1).max(2_000),
  triggerId: Id,
});
export type FeedbackReasonRequest = z.infer<typeof FeedbackReasonRequest>;

/** The reason form submitted (`view_submission`). */
export const FeedbackReason = z.object({
  kind: z.literal('surface'),
  surface: z.literal('feedback_reason'),
  ...Common,
  /** The view's `private_metadata`: which feedback the reason is for. */
  target: z.string().min(1).max(3_000),
  reason: z.string().max(3_000),
});
export type FeedbackReason = z.infer<typeof FeedbackReason>;

/** `app_home_opened` on the Home tab. */
export const HomeOpened = z.object({
  kind: z.literal('surface'),
  surface: z.literal('home_opened'),
  ...Common,
});
export type HomeOpened = z.infer<typeof HomeOpened>;

/** `assistant_thread_started`: a person opened the app's assistant (split view) thread. */
export const AssistantThreadStarted = z.object({
  kind: z.literal('surface'),
  surface: z.literal('assistant_thread_started'),
  ...Common,
  channel: Id,
  threadTs: Id,
});
export type AssistantThreadStarted = z.infer<typeof AssistantThreadStarted>;

export const InboxSurface = z.discriminatedUnion('surface', [
  FeedbackPress,
  FeedbackReasonRequest,
  FeedbackReason,
  HomeOpened,
  AssistantThreadStarted,
]);
export type InboxSurface = z.infer<typeof InboxSurface>;

/** The FIFO group of a surface record: a feedback press goes with its conversation's thread. */
export function surfaceKey(surface: InboxSurface): string {
  switch (surface.surface) {
    case 'feedback_press':
      return `${surface.channel}:${surface.threadTs ?? surface.messageTs}`;
    case 'assistant_thread_started':
      return `${surface.channel}:${surface.threadTs}`;
    case 'feedback_reason_request':
    case 'feedback_reason':
      return `feedback:${surface.user}`;
    case 'home_opened':
      return `home:${surface.user}`;
  }
}

/** What the surface addition did with a record; logged and counted by the Router. */
export interface SurfaceOutcome {
  type: 'surface';
  surface: InboxSurface['surface'];
  /** `stored`, `replaced`, `published`, `ignored`... */
  outcome: string;
  conversationId?: string;
  detail?: string;
}
