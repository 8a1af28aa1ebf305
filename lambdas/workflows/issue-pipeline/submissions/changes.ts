import * as z from 'zod';
import { communication } from './communication.ts';
import { WriterChange } from './parts.ts';

/** The writer's submission (`submit_changes`): what it committed on the work branch. */
export const ChangesSubmission = z.object({
  changes: z.array(WriterChange).min(1).max(50),
  test_written: z.boolean(),
  test_file: z.string().max(500).optional(),
  summary: z.string().min(1).max(4_000),
  ...communication,
});
export type ChangesSubmission = z.infer<typeof ChangesSubmission>;
