import * as z from 'zod';
import { ModelAgent, Observation } from './parts.ts';

const observations = z
  .array(Observation.omit({ agent: true }))
  .max(10)
  .optional()
  .describe('What you learned about this repository that the next pipelines should know.');

/** Every agent may ask another agent or people, or escalate, instead of (or besides) its result. */
export const communication = {
  question: z
    .object({
      to: z.union([ModelAgent, z.literal('people')]),
      question: z.string().min(1).max(2_000),
    })
    .optional()
    .describe(
      'Ask instead of guessing: another agent (triage, analyst, writer, reviewer) or people (the developers). ' +
        'The pipeline answers and runs your turn again with the answer; your other fields are then ignored.',
    ),
  escalation: z
    .object({ reason: z.string().min(1).max(2_000), requires_human: z.boolean() })
    .optional()
    .describe('Escalate to people (requires_human: true pauses the pipeline until one of them answers).'),
  observations,
};
