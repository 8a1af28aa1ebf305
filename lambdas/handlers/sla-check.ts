import { createLogger } from '../shared/logger.ts';
import { checkAcknowledgement, SlaCheckInput } from '../workflows/bug-investigation/sla-check.ts';
import { taskHandler } from './task-handler.ts';
import { kernelDeps } from './wiring.ts';

/** SlaTracking's check: has a developer answered since the escalation, or has the conversation ended? */
export const handler = taskHandler({
  task: 'SlaCheck',
  schema: SlaCheckInput,
  logger: createLogger('sla-check'),
  run: (input) => checkAcknowledgement(input, kernelDeps()),
  summary: (input, output) => ({ since: input.since, ...output }),
});
