import { CheckProtectedChangesInput, checkProtectedChanges } from '../changes/check-protected.ts';
import { readProtectedPaths } from '../changes/config.ts';
import { createLogger } from '../shared/logger.ts';
import { codeOctokit } from './code-octokit.ts';
import { taskHandler } from './task-handler.ts';

/** "Check protected changes": the work branch's real diff against the protected paths. */
export const handler = taskHandler({
  task: 'CheckProtectedChanges',
  schema: CheckProtectedChangesInput,
  logger: createLogger('check-protected-changes'),
  run: async (input) => {
    const { octokit, config } = await codeOctokit();
    return checkProtectedChanges(octokit, config.repository, input, readProtectedPaths());
  },
  summary: (input, output) => ({
    branch: input.branch,
    verdict: output.verdict,
    files: output.files.slice(0, 20),
  }),
});
