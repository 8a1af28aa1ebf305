import * as z from 'zod';
import type { Block } from './types.ts';

/**
 * The feedback buttons every answer carries: a Block Kit `context_actions` block holding one
 * `feedback_buttons` element (a thumbs up and a thumbs down). The block's id names what kind
 * of answer the message is, and for an answer of a conversation the kernel does not record
 * by thread (a channel answer), the conversation too: a press carries both back.
 */

/** The `action_id` of the feedback buttons: the ingress knows a feedback press by it. */
export const FEEDBACK_ACTION_ID = 'answer_feedback';

/** What an answer is, as the feedback export names it. */
export const AnswerKind = z.enum([
  'findings',
  'conclusion',
  'prd',
  'analysis',
  'pull_request',
  'channel_answer',
]);
export type AnswerKind = z.infer<typeof AnswerKind>;

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
export function feedbackBlock(kind: AnswerKind, conversationId?: string): Block {
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

/** A section holds 3,000 characters of text; a message at most 50 blocks. */
const SECTION_CHARS = 3_000;
const MAX_TEXT_SECTIONS = 40;
const MAX_MESSAGE_BLOCKS = 50;

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

/** The text as mrkdwn sections of at most 3,000 characters each. */
export function textSections(text: string): Block[] {
  const sections: Block[] = [];
  let rest = text.trim() === '' ? ' ' : text;
  while (rest.length > 0 && sections.length < MAX_TEXT_SECTIONS) {
    let cut = rest.length <= SECTION_CHARS ? rest.length : rest.lastIndexOf('\n', SECTION_CHARS);
    if (cut <= 0) cut = SECTION_CHARS;
    // Never split a surrogate pair.
    const code = rest.charCodeAt(cut - 1);
    if (cut < rest.length && code >= 0xd800 && code <= 0xdbff) cut -= 1;
    sections.push({ type: 'section', text: { type: 'mrkdwn', text: rest.slice(0, cut) } });
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  return sections;
}
