import type { Octokit } from '@octokit/rest';
import { createGitHubClient, getGitHubCredentials } from '../adapters/github.ts';
import { DefineChecksInput, defineChecksOf } from '../builds/define-checks.ts';
import { createLogger } from '../shared/logger.ts';
import { readCodeToolsConfig } from '../tools/code/config.ts';
import { taskHandler } from './task-handler.ts';

/** Built on first use; the App's installation token lives in it across warm invocations. */
let octokit: Octokit | undefined;

/** "Define checks": each check's command from the configuration or the base commit, as the build's buildspec. */
export const handler = taskHandler({
  task: 'DefineChecks',
  schema: DefineChecksInput,
  logger: createLogger('define-checks'),
  run: async (input) => {
    const config = readCodeToolsConfig();
    octokit ??= createGitHubClient({
      credentials: await getGitHubCredentials({
        secretArn: config.githubSecretArn,
        tokenOverride: config.githubToken,
      }),
      ...(config.githubBaseUrl !== undefined ? { baseUrl: config.githubBaseUrl } : {}),
    });
    return defineChecksOf(octokit, config.repository, input);
  },
  summary: (input, output) => ({
    branch: input.branch,
    baseSha: output.baseSha,
    checks: output.checks
      .map((c) => `${c.name}:${c.command ?? (c.refused ? 'refused' : 'skipped')}`)
      .join(', '),
  }),
});
