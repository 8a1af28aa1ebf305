import { PROTECTED_PATHS_ENV } from '../../lambdas/changes/config.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { CODE_TOOLS_ENV } from '../../lambdas/tools/code/config.ts';
import { ISSUE_PIPELINE_ANSWER_KINDS } from '../../lambdas/workflows/issue-pipeline/answer-kinds.ts';
import {
  ISSUE_PIPELINE_SETTINGS_ENV,
  type IssuePipelineSettings,
} from '../../lambdas/workflows/issue-pipeline/config.ts';
import { repositoryPreflight } from '../module-preflight.ts';
import { defineWorkflowModule } from '../workflow-module.ts';
import { ISSUE_FUNCTIONS, type IssueFunctionId } from './functions.ts';
import { ISSUE_PIPELINE_SANDBOX } from './sandbox.ts';
import { SENSITIVE_CHANGE_DECISION } from './states.ts';
import { ISSUE_PIPELINE } from './workflow.ts';

/**
 * The issue pipeline: an issue labelled `agent` (by default) in the configured
 * repository goes through triage, analyst, writer, build, reviewer and committer to a pull
 * request; its progress is one Slack message in the configured channel and one issue comment.
 * Without a repository nothing of it is deployed.
 */
export const ISSUE_PIPELINE_MODULE = defineWorkflowModule<IssueFunctionId, IssuePipelineSettings>({
  // Its name, configuration section, demo agents and view in the sandbox's console (sandbox.ts;
  // `workflows` is replaced below).
  ...ISSUE_PIPELINE_SANDBOX,
  answerKinds: ISSUE_PIPELINE_ANSWER_KINDS,
  channels: {
    /** Where each pipeline's progress message goes, and its questions (placeholder id). */
    issuePipeline: 'C_DEVELOPERS',
  },
  // `requester`: who labelled the issue; `commenter`: anyone commenting on it (write access is
  // checked in code before an answer counts); `developer`: replies in the pipeline's thread.
  roles: ['requester', 'commenter', 'developer'],
  // Changes to protected paths (and `sensitivePaths`): developers may approve them by default.
  decisions: { [SENSITIVE_CHANGE_DECISION]: ['developer'] },
  functions: ISSUE_FUNCTIONS,
  queues: {
    /** An issue labelled again while its pipeline runs: the Router hands it here to be answered on the issue. */
    IssueRetriggers: {
      consumer: 'IssueRetrigger',
      batchSize: 1,
      senders: ['Router'],
      urlVariable: ENV.retriggerQueueUrl,
      deadLetterUrlVariable: ENV.retriggerDeadLetterQueueUrl,
    },
  },
  enabled: (settings) => settings.repository !== undefined,
  switchOff: 'remove issuePipeline.repository',
  // Its agents read and change the repository, and its checks build clones it.
  preflight: (settings) => repositoryPreflight(settings.repository),
  environment: (settings, kernel) =>
    settings.repository === undefined
      ? {}
      : {
          [CODE_TOOLS_ENV.repository]: settings.repository,
          [PROTECTED_PATHS_ENV]: JSON.stringify(kernel.protectedPaths ?? {}),
          [ISSUE_PIPELINE_SETTINGS_ENV]: JSON.stringify(settings),
        },
  workflows: [ISSUE_PIPELINE],
});
