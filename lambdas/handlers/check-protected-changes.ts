import type { Octokit } from '@octokit/rest';
import { createGitHubClient, getGitHubCredentials } from '../adapters/github.ts';
import { CheckProtectedChangesInput, checkProtectedChanges } from '../changes/check-protected.ts';
import { readProtectedPaths } from '../changes/config.ts';
import { createLogger } from '../shared/logger.ts';
import { readCodeToolsConfig } from '../tools/code/config.ts';
import { taskHandler } from './task-handler.ts';

/** Built on first use; the App's installation token lives in it across warm invocations. */
let octokit: Octokit | undefined;

/** "Check protected changes": the work branch's real diff against the protected paths. */
export const handler = taskHandler({
  task: 'CheckProtectedChanges',
  schema: CheckProtectedChangesInput,
  logger: createLogger('check-protected-changes'),
  run: async (input) => {
    const config = readCodeToolsConfig();
    octokit ??= createGitHubClient({
      credentials: await getGitHubCredentials({
        secretArn: config.githubSecretArn,
        tokenOverride: config.githubToken,
      }),
      ...(config.githubBaseUrl !== undefined ? { baseUrl: config.githubBaseUrl } : {}),
    });
    return checkProtectedChanges(octokit, config.repository, input, readProtectedPaths());
  },
  summary: (input, output) => ({
    branch: input.branch,
    verdict: output.verdict,
    files: output.files.slice(0, 20),
  }),
});
