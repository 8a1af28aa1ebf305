import type { AnswerKindLabels } from '../../slack/templates/feedback.ts';

/** The probe agent's answer carries feedback buttons; the acknowledgement of a press names it so. */
export const PROBE_ANSWER_KINDS = { probe_answer: 'this probe answer' } as const satisfies AnswerKindLabels;
