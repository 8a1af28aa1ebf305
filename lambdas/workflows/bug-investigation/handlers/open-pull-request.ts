import { codeOctokit } from '../../../handlers/code-octokit.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { createLogger } from '../../../shared/logger.ts';
import { OpenPullRequestInput } from '../fix/contract.ts';
import { openFixPullRequest } from '../fix/pull-request.ts';

const logger = createLogger('open-pull-request');

/** "Open pull request": the fix's draft pull request, through Octokit (the workflow's, not the model's). */
export const handler = taskHandler({
  task: 'OpenPullRequest',
  schema: OpenPullRequestInput,
  logger,
  run: async (input) => {
    const github = await codeOctokit();
    return openFixPullRequest(github.octokit, github.config.repository, input);
  },
  summary: (input, output) => ({ branch: input.branch, ...output }),
});
