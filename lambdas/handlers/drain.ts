import { drain } from '../kernel/drain.ts';
import { DrainInput, type DrainOutput } from '../kernel/tasks.ts';
import { createLogger } from '../shared/logger.ts';
import { parseTaskInput } from './parse-task-input.ts';
import { kernelDeps } from './wiring.ts';

const logger = createLogger('drain');

export async function handler(event: unknown): Promise<DrainOutput> {
  const input = parseTaskInput('Drain', DrainInput, event);
  const output = await drain(input, kernelDeps());
  logger.info('drained pending messages', {
    conversationId: input.conversationId,
    turn: output.turn,
    count: output.count,
    closeRequested: output.closeRequested,
  });
  return output;
}
