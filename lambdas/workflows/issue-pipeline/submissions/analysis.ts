import * as z from 'zod';
import { communication } from './communication.ts';
import { AnalysisFile, TestRequirement } from './parts.ts';

/** The analyst's submission (`submit_analysis`): the writer's brief. */
export const AnalysisSubmission = z.object({
  brief: z.string().min(1).max(12_000).describe('The full Markdown brief for the writer.'),
  files: z.array(AnalysisFile).min(1).max(50),
  patterns: z.array(z.string().max(500)).max(30),
  test_requirement: TestRequirement,
  must_do: z.array(z.string().max(500)).min(1).max(30),
  must_not_do: z.array(z.string().max(500)).max(30),
  ...communication,
});
export type AnalysisSubmission = z.infer<typeof AnalysisSubmission>;
