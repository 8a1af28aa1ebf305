import { IssuePipelineSettings } from '../../lambdas/workflows/issue-pipeline/config.ts';
import type { SandboxModule } from '../module-sandbox.ts';

/**
 * What the sandbox reads of the issue pipeline's module (index.ts), which takes it from here: its
 * name, its configuration section, its workflow's name, its demo agents and its view in the
 * console, without the code that builds its state machine.
 */
export const ISSUE_PIPELINE_SANDBOX = {
  name: 'issue_pipeline',
  settings: { key: 'issuePipeline', schema: IssuePipelineSettings },
  workflows: [{ name: 'issue_pipeline' }],
  demoAgents: async () => (await import('./demo.ts')).ISSUE_DEMO_AGENTS,
  // The console shows the pipeline's document (its state), when it has one yet.
  sandboxView: (table) => async (conversationId) => {
    const { DynamoIssueStateStore } = await import(
      '../../lambdas/workflows/issue-pipeline/adapters/dynamo-issue-state.ts'
    );
    return { document: await new DynamoIssueStateStore(table).load(conversationId).catch(() => undefined) };
  },
} satisfies SandboxModule;
