import { drain } from '../kernel/drain.ts';
import { DrainInput } from '../kernel/tasks.ts';
import { createLogger } from '../shared/logger.ts';
import { taskHandler } from './task-handler.ts';
import { kernelDeps } from './wiring.ts';

/** Hands the pending messages to the next turn. */
export const handler = taskHandler({
  task: 'Drain',
  schema: DrainInput,
  logger: createLogger('drain'),
  run: (input) => drain(input, kernelDeps()),
  summary: (_input, output) => ({
    turn: output.turn,
    count: output.count,
    closeRequested: output.closeRequested,
  }),
});
