import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { createLogger } from '../../../shared/logger.ts';
import { checkAcknowledgement, SlaCheckInput } from '../sla-check.ts';

/** SlaTracking's check: has a developer answered since the escalation, or has the conversation ended? */
export const handler = taskHandler({
  task: 'SlaCheck',
  schema: SlaCheckInput,
  logger: createLogger('sla-check'),
  run: (input) => checkAcknowledgement(input, kernelDeps()),
  summary: (input, output) => ({ since: input.since, ...output }),
});
