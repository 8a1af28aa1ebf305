import type { Octokit } from '@octokit/rest';
import { createGitHubClient, getGitHubCredentials } from '../../../adapters/github.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { createLogger } from '../../../shared/logger.ts';
import { readCodeToolsConfig } from '../../../tools/code/config.ts';
import { OpenPullRequestInput } from '../fix/contract.ts';
import { openFixPullRequest } from '../fix/pull-request.ts';

const logger = createLogger('open-pull-request');

/** Built on first use; the App's installation token lives in it across warm invocations. */
let octokit: Octokit | undefined;

/** "Open pull request": the fix's draft pull request, through Octokit (the workflow's, not the model's). */
export const handler = taskHandler({
  task: 'OpenPullRequest',
  schema: OpenPullRequestInput,
  logger,
  run: async (input) => {
    const config = readCodeToolsConfig();
    octokit ??= createGitHubClient({
      credentials: await getGitHubCredentials({
        secretArn: config.githubSecretArn,
        tokenOverride: config.githubToken,
      }),
      ...(config.githubBaseUrl !== undefined ? { baseUrl: config.githubBaseUrl } : {}),
    });
    return openFixPullRequest(octokit, config.repository, input);
  },
  summary: (input, output) => ({ branch: input.branch, ...output }),
});
