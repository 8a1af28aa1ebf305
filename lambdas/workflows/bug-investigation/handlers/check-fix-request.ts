import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { peopleDirectory } from '../../../handlers/people-directory.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { ENV, requireEnv } from '../../../shared/env.ts';
import { createLogger } from '../../../shared/logger.ts';
import { DynamoFixRequests } from '../adapters/dynamo-fix-requests.ts';
import { FixRequestCheckInput } from '../fix/contract.ts';
import { checkFixRequest, FIX_REQUEST_ROLE } from '../fix/fix-request.ts';

let fixRequests: DynamoFixRequests | undefined;

function fixRequestRecords(): DynamoFixRequests {
  fixRequests ??= new DynamoFixRequests({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
  });
  return fixRequests;
}

/** "Check fix request": did a developer ask, by their own act? (The investigator's word is not enough.) */
export const handler = taskHandler({
  task: 'CheckFixRequest',
  schema: FixRequestCheckInput,
  logger: createLogger('check-fix-request'),
  run: async (input) => {
    const { store } = kernelDeps();
    const people = await peopleDirectory();
    const records = fixRequestRecords();
    return checkFixRequest(input, {
      conversation: () => store.getConversation(input.conversationId, { consistent: true }),
      messages: () => store.listMessages(input.conversationId),
      holdsDeveloperRole: async (userId) =>
        people?.configures(FIX_REQUEST_ROLE) ? people.holds(userId, FIX_REQUEST_ROLE) : undefined,
      useRequest: (request, turn) => records.use(input.conversationId, request, turn),
    });
  },
  summary: (input, output) => ({
    fixRequest: input.fixRequest,
    allowed: output.allowed,
    requestedBy: output.requestedBy,
  }),
});
