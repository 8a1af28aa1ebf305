import { systemClock } from '../kernel/ports.ts';
import { registerWait } from '../kernel/register-wait.ts';
import { RegisterWaitInput } from '../kernel/tasks.ts';
import { createLogger } from '../shared/logger.ts';
import { taskHandler } from './task-handler.ts';
import { kernelDeps } from './wiring.ts';

/** Invoked with `.waitForTaskToken`: records the wait, then wakes it at once if it is already due. */
export const handler = taskHandler({
  task: 'RegisterWait',
  schema: RegisterWaitInput,
  logger: createLogger('register-wait'),
  run: (input) => registerWait(input, { ...kernelDeps(), clock: systemClock }),
  summary: (input, result) => ({ accepts: input.accepts, phase: input.phase, result }),
});
