import * as z from 'zod';
import { mrkdwnText, SECTION_TEXT_LIMIT } from '../../../slack/templates/text.ts';
import type { RenderedMessage } from '../../../slack/templates/types.ts';

/** `bug_question`: the investigator's clarification question, in the reporter's thread. */
export const BugQuestionData = z.object({
  result: z.object({ clarificationQuestion: z.string().optional() }),
});
export type BugQuestionData = z.infer<typeof BugQuestionData>;

/**
 * Used when the agent asked for the reporter without saying what it wants to know: the
 * reporter still gets a question they can answer, and the conversation does not stall.
 */
export const GENERIC_QUESTION =
  'Could you tell me more? Steps to reproduce, what you expected and what happened instead, and where you saw it would help.';

export function renderBugQuestion(data: BugQuestionData): RenderedMessage {
  const question = data.result.clarificationQuestion?.trim() || GENERIC_QUESTION;
  return { text: `:question: ${mrkdwnText(question, SECTION_TEXT_LIMIT)}` };
}
