import type { z } from 'zod';
import { InvalidTaskInputError } from '../kernel/errors.ts';

/** Validates a state machine task's input; a mismatch is a terminal `InvalidTaskInputError`. */
export function parseTaskInput<S extends z.ZodType>(task: string, schema: S, event: unknown): z.infer<S> {
  const parsed = schema.safeParse(event);
  if (!parsed.success) throw new InvalidTaskInputError(task, { cause: parsed.error });
  return parsed.data;
}
