import type { AnswerKindLabels } from '../../slack/templates/feedback.ts';

/**
 * The kinds of answer whose posts carry feedback buttons in the bug investigation's answers: its findings for developers, and the pull request of a fix, with how the
 * acknowledgement of a press names each. Its module declares them (`answerKinds`).
 */
export const BUG_ANSWER_KINDS = {
  findings: 'these findings',
  pull_request: 'this pull request',
} as const satisfies AnswerKindLabels;
