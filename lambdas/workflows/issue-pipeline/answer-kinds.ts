import type { AnswerKindLabels } from '../../slack/templates/feedback.ts';

/**
 * The kinds of answer whose posts carry feedback buttons in the issue pipeline's answer: the pull request it opens, with how the
 * acknowledgement of a press names each. Its module declares them (`answerKinds`).
 */
export const ISSUE_PIPELINE_ANSWER_KINDS = {
  pull_request: 'this pull request',
} as const satisfies AnswerKindLabels;
