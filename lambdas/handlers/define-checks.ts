import { DefineChecksInput, defineChecksOf } from '../builds/define-checks.ts';
import { createLogger } from '../shared/logger.ts';
import { codeOctokit } from './code-octokit.ts';
import { taskHandler } from './task-handler.ts';

/** "Define checks": each check's command from the configuration or the base commit, as the build's buildspec. */
export const handler = taskHandler({
  task: 'DefineChecks',
  schema: DefineChecksInput,
  logger: createLogger('define-checks'),
  run: async (input) => {
    const { octokit, config } = await codeOctokit();
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
