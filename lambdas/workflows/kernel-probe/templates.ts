import * as z from 'zod';
import { withFeedback } from '../../slack/templates/feedback.ts';
import { defineTemplates } from '../../slack/templates/index.ts';
import { FALLBACK_TEXT_LIMIT, mrkdwnText } from '../../slack/templates/text.ts';
import type { RenderedMessage } from '../../slack/templates/types.ts';

/** `probe_answer`: the probe agent's answer, with the feedback buttons of its answer kind. */
export const ProbeAnswerData = z.object({ answer: z.string().min(1) });
export type ProbeAnswerData = z.infer<typeof ProbeAnswerData>;

export function renderProbeAnswer(data: ProbeAnswerData): RenderedMessage {
  const text = `probe agent: ${data.answer}`;
  return { text: mrkdwnText(text, FALLBACK_TEXT_LIMIT), blocks: withFeedback({ text }, 'probe_answer') };
}

export const PROBE_TEMPLATES = defineTemplates({
  probe_answer: { data: ProbeAnswerData, render: renderProbeAnswer },
});
