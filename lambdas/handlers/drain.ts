import { drain } from '../kernel/drain.ts';
import { DEFAULT_SETTLE } from '../kernel/settle.ts';
import { DrainInput } from '../kernel/tasks.ts';
import { createLogger } from '../shared/logger.ts';
import { taskHandler } from './task-handler.ts';
import { kernelDeps } from './wiring.ts';

/** Hands the pending messages to the next turn. */
export const handler = taskHandler({
  task: 'Drain',
  schema: DrainInput,
  logger: createLogger('drain'),
  // The invocation's time goes in Drain's own write on the conversation: no ledger request of
  // its own on the wake path (the last round trip, in parallel with the marks, is not counted).
  run: async (input, _context, meter) => {
    const output = await drain(input, kernelDeps(), { elapsedMs: meter.elapsedMs, settle: DEFAULT_SETTLE });
    meter.recorded();
    return output;
  },
  summary: (_input, output) => ({
    turn: output.turn,
    count: output.count,
    closeRequested: output.closeRequested,
  }),
});
