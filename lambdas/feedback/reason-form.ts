import * as z from 'zod';

/**
 * The optional reason for a thumbs down: a modal (`views.open` with the press's trigger id)
 * whose one field is the reason, and whose `private_metadata` names the feedback it is for.
 * The acknowledgement of a thumbs down also carries an "Add a reason" button that opens the
 * same form, for when the form could not open in time (a trigger id lives three seconds).
 */

export const FEEDBACK_REASON_CALLBACK_ID = 'feedback_reason';
export const FEEDBACK_REASON_ACTION_ID = 'feedback_reason_open';
const REASON_BLOCK_ID = 'reason';
const REASON_INPUT_ID = 'reason_text';
/** Slack's plain-text input allows up to 3,000 characters. */
export const MAX_REASON_CHARS = 3_000;

/** Which feedback a reason is for: carried in the view's `private_metadata` and the button's value. */
export const FeedbackTarget = z.strictObject({
  conversationId: z.string().min(1).max(255),
  channel: z.string().min(1).max(255),
  messageTs: z.string().min(1).max(255),
});
export type FeedbackTarget = z.infer<typeof FeedbackTarget>;

export function encodeTarget(target: FeedbackTarget): string {
  return JSON.stringify(FeedbackTarget.parse(target));
}

/** The target a form or button names, or undefined when it is not one of ours. */
export function decodeTarget(text: string): FeedbackTarget | undefined {
  try {
    const parsed = FeedbackTarget.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The modal asking why an answer was not helpful (a Block Kit `modal` view). */
export function reasonModal(target: FeedbackTarget, answerLabel: string): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: FEEDBACK_REASON_CALLBACK_ID,
    private_metadata: encodeTarget(target),
    title: { type: 'plain_text', text: 'What was wrong?' },
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Skip' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `Your thumbs down on ${answerLabel} is recorded. If you like, say what was wrong: it helps us judge the agents. Skip keeps the vote without a reason.`,
        },
      },
      {
        type: 'input',
        block_id: REASON_BLOCK_ID,
        optional: true,
        label: { type: 'plain_text', text: 'Reason' },
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT_ID,
          multiline: true,
          max_length: MAX_REASON_CHARS,
          placeholder: { type: 'plain_text', text: 'e.g. the root cause is elsewhere: ...' },
        },
      },
    ],
  };
}

/** The "Add a reason" button of a thumbs down's acknowledgement. */
export function addReasonButton(target: FeedbackTarget): Record<string, unknown> {
  return {
    type: 'actions',
    block_id: 'feedback_reason',
    elements: [
      {
        type: 'button',
        action_id: FEEDBACK_REASON_ACTION_ID,
        text: { type: 'plain_text', text: 'Add a reason' },
        value: encodeTarget(target),
      },
    ],
  };
}

/**
 * The reason from a submitted form's `view.state.values`: '' when left empty, undefined when
 * the form has no reason field at all (not our form).
 */
export function readReason(
  values: Record<string, Record<string, Record<string, unknown>>>,
): string | undefined {
  const field = values[REASON_BLOCK_ID]?.[REASON_INPUT_ID];
  if (field === undefined) return undefined;
  const value = field.value;
  return typeof value === 'string' ? value.slice(0, MAX_REASON_CHARS).trim() : '';
}
