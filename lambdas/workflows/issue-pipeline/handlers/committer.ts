import { taskHandler } from '../../../handlers/task-handler.ts';
import { createLogger } from '../../../shared/logger.ts';
import { runCommitter } from '../committer.ts';
import { CommitInput } from '../contract.ts';
import { github, issueStateStore, pipelineSettings } from './wiring.ts';

/** "Committer": the pull request with "Closes #n", by code (never merged). */
export const handler = taskHandler({
  task: 'IssueCommitter',
  schema: CommitInput,
  logger: createLogger('issue-committer'),
  run: async (input) => {
    const { octokit, repository } = await github();
    const settings = pipelineSettings();
    return runCommitter(input.conversationId, {
      octokit,
      store: issueStateStore(),
      repository,
      draft: settings.pullRequest === 'draft',
      triggerLabel: settings.label,
    });
  },
  summary: (_input, output) => ({ ...output }),
});
