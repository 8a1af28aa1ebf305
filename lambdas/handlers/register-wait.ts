import { systemClock } from '../kernel/ports.ts';
import { registerWait } from '../kernel/register-wait.ts';
import { RegisterWaitInput } from '../kernel/tasks.ts';
import { createLogger } from '../shared/logger.ts';
import { parseTaskInput } from './parse-task-input.ts';
import { kernelDeps } from './wiring.ts';

const logger = createLogger('register-wait');

/** Invoked with `.waitForTaskToken`: records the wait, then wakes it at once if it is already due. */
export async function handler(event: unknown) {
  const input = parseTaskInput('RegisterWait', RegisterWaitInput, event);
  const result = await registerWait(input, { ...kernelDeps(), clock: systemClock });
  logger.info('wait registered', {
    conversationId: input.conversationId,
    accepts: input.accepts,
    phase: input.phase,
    result,
  });
  return result;
}
