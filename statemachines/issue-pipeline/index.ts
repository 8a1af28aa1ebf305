import { PROTECTED_PATHS_ENV } from '../../lambdas/changes/config.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { CODE_TOOLS_ENV } from '../../lambdas/tools/code/config.ts';
import { ISSUE_PIPELINE_ANSWER_KINDS } from '../../lambdas/workflows/issue-pipeline/answer-kinds.ts';
import {
  ISSUE_PIPELINE_SETTINGS_ENV,
  IssuePipelineSettings,
} from '../../lambdas/workflows/issue-pipeline/config.ts';
import { repositoryPreflight } from '../module-preflight.ts';
import { defineWorkflowModule } from '../workflow-module.ts';
import { ISSUE_FUNCTIONS, type IssueFunctionId } from './functions.ts';
import { SENSITIVE_CHANGE_DECISION } from './states.ts';
import { ISSUE_PIPELINE } from './workflow.ts';

/**
 * The issue pipeline: an issue labelled `agent` (by default) in the configured
 * repository goes through triage, analyst, writer, build, reviewer and committer to a pull
 * request; its progress is one Slack message in the configured channel and one issue comment.
 * Without a repository nothing of it is deployed.
 */
export const ISSUE_PIPELINE_MODULE = defineWorkflowModule<IssueFunctionId, IssuePipelineSettings>({
  name: 'issue_pipeline',
  demoAgents: async () => (await import('./demo.ts')).ISSUE_DEMO_AGENTS,
  answerKinds: ISSUE_PIPELINE_ANSWER_KINDS,
  settings: { key: 'issuePipeline', schema: IssuePipelineSettings },
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
  // The console shows the pipeline's document (its state), when it has one yet.
  sandboxView: (table) => async (conversationId) => {
    const { DynamoIssueStateStore } = await import(
      '../../lambdas/workflows/issue-pipeline/adapters/dynamo-issue-state.ts'
    );
    return { document: await new DynamoIssueStateStore(table).load(conversationId).catch(() => undefined) };
  },
});
