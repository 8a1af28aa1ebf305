import * as z from 'zod';

/**
 * The parts of the state document (state.ts) that the agents' submissions repeat: a submission
 * is checked against the same shapes its section is stored in. Apart from the document, so an
 * agent turn builds these and its own submission's schema, not the whole document.
 */

/** A string of at most `max` characters. */
export const text = (max: number) => z.string().max(max);

/** The agents that are models (the build and the committer are code). */
export const ModelAgent = z.enum(['triage', 'analyst', 'writer', 'reviewer']);
export type ModelAgent = z.infer<typeof ModelAgent>;

export const AnalysisFile = z.object({
  path: text(500),
  purpose: text(500),
  action: z.enum(['modify', 'create', 'delete']),
});

export const TestRequirement = z.object({
  required: z.boolean(),
  type: z.enum(['regression', 'unit', 'integration', 'none']),
  location: text(500).nullable(),
  description: text(2_000),
});

export const WriterChange = z.object({ file: text(500), description: text(1_000) });

export const ReviewIssue = z.object({
  file: text(500),
  line: z.number().int().positive().nullable(),
  issue: text(1_000),
  severity: z.enum(['minor', 'major', 'critical']),
});

export const Observation = z.object({
  agent: ModelAgent,
  type: z.enum(['pattern_discovered', 'pitfall', 'convention', 'other']),
  content: text(1_000),
});
