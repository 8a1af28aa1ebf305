import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IssueHarness, pipelineIdFor, REPO, startIssueHarness } from '../sandbox/issue-harness.ts';
import { toolUse, withUsage } from '../support/scripted-model.ts';

/**
 * The issue pipeline's money ceiling (`issuePipeline.maxCostUsd`) is reserved against before
 * every model call of its agents, with the conversation's own budget: an agent's tool loop
 * stops at the call that would go past it, not at the next hand-off between agents. (Its own
 * sandbox: the handlers read one process environment, so two sandboxes cannot share a file.)
 */

describe('the issue pipeline’s money ceiling', () => {
  let pipeline: IssueHarness;
  beforeAll(async () => {
    pipeline = await startIssueHarness({ issuePipeline: { maxCostUsd: 0.05 } });
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  it('is held before every model call, inside an agent’s turn, not only between agents', async () => {
    const issue = await pipeline.openIssue('Checkout totals too high', 'VAT is charged before the discount.');
    const id = pipelineIdFor(issue);
    // The first call bills 8,000 output tokens ($0.08): past the $0.05 ceiling, mid-turn.
    pipeline.script(id, [
      withUsage(toolUse('list_files', { glob: '*.md' }), { input_tokens: 100, output_tokens: 8_000 }),
      // What the agent would do next, were the call allowed.
      toolUse('submit_triage', {
        type: 'BUG_FIX',
        scope: 'SMALL',
        complexity: 'simple',
        should_proceed: true,
      }),
    ]);

    const state = await pipeline.waitFor(
      () => pipeline.documents.load(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the pipeline to stop',
    );

    expect(pipeline.requestsOf(id)).toHaveLength(1);
    expect(state.pipeline.status).toBe('blocked');
    // The second call of the turn was refused; the hand-off then says why in the pipeline's words.
    expect(state.pipeline.blocked_reason).toBe(
      "Stopped at a hard limit: the pipeline's estimated model cost reached $0.0802, its ceiling is $0.05.",
    );
    const comments = await pipeline.waitFor(
      async () => (await pipeline.github.rest.issues.listComments({ ...REPO, issue_number: issue })).data,
      (cs) => cs.some((c) => c.body?.includes('**blocked**') && c.body.includes('$0.05')),
      'the issue told why the pipeline stopped',
    );
    expect(comments).toHaveLength(1);
  });
});
