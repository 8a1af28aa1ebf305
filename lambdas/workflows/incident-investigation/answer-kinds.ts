import type { AnswerKindLabels } from '../../slack/templates/feedback.ts';

/**
 * The kinds of answer whose posts carry feedback buttons in the incident investigation's answer: its cited conclusion, with how the
 * acknowledgement of a press names each. Its module declares them (`answerKinds`).
 */
export const INCIDENT_ANSWER_KINDS = { conclusion: 'this conclusion' } as const satisfies AnswerKindLabels;
