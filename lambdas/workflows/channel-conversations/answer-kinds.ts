import type { AnswerKindLabels } from '../../slack/templates/feedback.ts';

/**
 * The kinds of answer whose posts carry feedback buttons in channel conversations' answer: each reply in a channel, with how the
 * acknowledgement of a press names each. Its module declares them (`answerKinds`).
 */
export const CHANNEL_ANSWER_KINDS = { channel_answer: 'this answer' } as const satisfies AnswerKindLabels;
