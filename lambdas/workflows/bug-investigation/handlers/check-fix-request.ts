import { taskHandler } from '../../../handlers/task-handler.ts';
import { createLogger } from '../../../shared/logger.ts';
import { FixRequestCheckInput } from '../fix/contract.ts';
import { checkFixRequest } from '../fix/fix-request.ts';

/** "Check fix request": did a developer ask? (The investigator's word is not enough.) */
export const handler = taskHandler({
  task: 'CheckFixRequest',
  schema: FixRequestCheckInput,
  logger: createLogger('check-fix-request'),
  run: async (input) => checkFixRequest(input),
  summary: (_input, output) => ({ allowed: output.allowed, requestedBy: output.requestedBy }),
});
