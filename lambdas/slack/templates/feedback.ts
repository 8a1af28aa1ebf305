import * as z from 'zod';
import { MAX_MESSAGE_BLOCKS, textSections } from './text.ts';
import type { Block } from './types.ts';

/**
 * The feedback buttons every answer carries: a Block Kit `context_actions` block holding one
 * `feedback_buttons` element (a thumbs up and a thumbs down). The block's id names what kind
 * of answer the message is, and for an answer of a conversation the kernel does not record
 * by thread (a channel answer), the conversation too: a press carries both back.
 */

/** The `action_id` of the feedback buttons: the ingress knows a feedback press by it. */
export const FEEDBACK_ACTION_ID = 'answer_feedback';

/**
 * What an answer is, as the feedback export names it (`findings`, `channel_answer`): lower
 * snake case, one of the kinds the deployed workflow modules declare (`answerKinds`, each with
 * how the acknowledgement names it). A block id carries any such name; the Router takes a press
 * only on a kind some deployed workflow declares (ANSWER_KINDS).
 */
export const AnswerKind = z
  .string()
  .max(64)
  .regex(/^[a-z][a-z0-9_]*$/);
export type AnswerKind = z.infer<typeof AnswerKind>;

/** A workflow's answer kinds with how the acknowledgement names each ("these findings"). */
export type AnswerKindLabels = Readonly<Record<AnswerKind, string>>;

/** The two votes; each is also its button's `value`. */
export const FeedbackVote = z.enum(['up', 'down']);
export type FeedbackVote = z.infer<typeof FeedbackVote>;

const BLOCK_ID_PREFIX = 'feedback';

/** `feedback:<kind>` or `feedback:<kind>:<conversation id>` (Slack allows 255 characters). */
export function feedbackBlockId(kind: AnswerKind, conversationId?: string): string {
  return conversationId === undefined
    ? `${BLOCK_ID_PREFIX}:${kind}`
    : `${BLOCK_ID_PREFIX}:${kind}:${conversationId}`;
}

/** The answer kind (and conversation) a feedback block id names, or undefined when it is not one of ours. */
export function parseFeedbackBlockId(
  blockId: string | undefined,
): { kind: AnswerKind; conversationId?: string } | undefined {
  if (blockId === undefined) return undefined;
  const [prefix, kind, ...rest] = blockId.split(':');
  if (prefix !== BLOCK_ID_PREFIX) return undefined;
  const parsed = AnswerKind.safeParse(kind);
  if (!parsed.success) return undefined;
  const conversationId = rest.join(':');
  return conversationId === '' ? { kind: parsed.data } : { kind: parsed.data, conversationId };
}

/** The feedback block for an answer of `kind`; append it last to the answer's blocks. */
function feedbackBlock(kind: AnswerKind, conversationId?: string): Block {
  return {
    type: 'context_actions',
    block_id: feedbackBlockId(kind, conversationId),
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION_ID,
        positive_button: {
          text: { type: 'plain_text', text: 'Good answer' },
          accessibility_label: 'Mark this answer as helpful',
          value: FeedbackVote.enum.up,
        },
        negative_button: {
          text: { type: 'plain_text', text: 'Bad answer' },
          accessibility_label: 'Mark this answer as not helpful, and say why if you like',
          value: FeedbackVote.enum.down,
        },
      },
    ],
  };
}

/**
 * `blocks` with the feedback block appended. An answer with no blocks is shown as its text in
 * sections (cut at line ends where it can), so the buttons can follow it: a message with
 * blocks shows the blocks, not its `text`.
 */
export function withFeedback(
  message: { readonly text: string; readonly blocks?: readonly Block[] | undefined },
  kind: AnswerKind,
  conversationId?: string,
): Block[] {
  const blocks = message.blocks ?? textSections(message.text);
  // Slack refuses a message of more than 50 blocks: the buttons take the last place but one,
  // which SlackPost's cost line may take.
  return [...blocks.slice(0, MAX_MESSAGE_BLOCKS - 2), feedbackBlock(kind, conversationId)];
}
