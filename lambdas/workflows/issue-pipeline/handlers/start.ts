import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoWorkBranches } from '../../../adapters/dynamo-work-branches.ts';
import { peopleDirectory } from '../../../handlers/people-directory.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { ENV, requireEnv } from '../../../shared/env.ts';
import { createLogger } from '../../../shared/logger.ts';
import { readCodeToolsConfig } from '../../../tools/code/config.ts';
import { StartInput } from '../contract.ts';
import { labelledBodyOf, startPipeline } from '../start.ts';
import { START_ROLE, startRefusal } from '../start-authority.ts';
import { github, issueStateStore, pipelineSettings } from './wiring.ts';

let workBranches: DynamoWorkBranches | undefined;

/**
 * "Start pipeline": the issue from GitHub, the base commit, the initial document, and the work
 * branch recorded as the conversation's own (the code tools write there and nowhere else).
 */
export const handler = taskHandler({
  task: 'IssueStart',
  schema: StartInput,
  logger: createLogger('issue-start'),
  run: async (input) => {
    const { octokit, repository } = await github();
    workBranches ??= new DynamoWorkBranches({
      client: new DynamoDBClient({}),
      tableName: requireEnv(ENV.tableName),
    });
    return startPipeline(input, {
      octokit,
      store: issueStateStore(),
      now: () => new Date(),
      maxAttempts: pipelineSettings().maxAttempts,
      branchPrefix: readCodeToolsConfig().branchPrefix,
      workBranches,
      labelledBody: async () =>
        input.ownerId?.startsWith('github:') === true
          ? labelledBodyOf(input.ownerId, await kernelDeps().store.listMessages(input.conversationId))
          : undefined,
      startRefusal: (ownerId) =>
        startRefusal(ownerId, {
          repository: `${repository.owner}/${repository.repo}`,
          permissionOf: async (username) =>
            (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repository, username })).data
              .permission,
          holdsDeveloperRole: async (userId) => {
            const people = await peopleDirectory();
            return people?.configures(START_ROLE) ? people.holds(userId, START_ROLE) : undefined;
          },
        }),
    });
  },
  summary: (_input, output) => ({ issue: output.number, branch: output.branch, baseSha: output.baseSha }),
});
