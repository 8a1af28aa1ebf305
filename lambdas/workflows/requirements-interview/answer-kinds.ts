import type { AnswerKindLabels } from '../../slack/templates/feedback.ts';

/**
 * The kinds of answer whose posts carry feedback buttons in the requirements interview's answers: the PRD and its analysis, with how the
 * acknowledgement of a press names each. Its module declares them (`answerKinds`).
 */
export const REQUIREMENTS_ANSWER_KINDS = {
  prd: 'this PRD',
  analysis: 'this analysis',
} as const satisfies AnswerKindLabels;
