import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolUse, withUsage } from '../support/scripted-model.ts';
import { type IssueHarness, pipelineIdFor, REPO, startIssueHarness } from './issue-harness.ts';
import { expectFailedWithRefusal, KEY_REJECTED_ANSWER } from './model-refusal.ts';

/**
 * Issue pipeline follow-ups in the sandbox: the money ceiling held on the ledger's estimated cost
 * (the platform's price table, the sandbox model priced as claude-sonnet-5-5: $2 in, $10 out
 * per million tokens); the conversation's phase set at each hand-off; a model that refuses the
 * key (the sandbox's `key_rejected` fault) fails the pipeline with the model's answer.
 */

const CEILING_USD = 1;
let h: IssueHarness;
beforeAll(async () => {
  h = await startIssueHarness({ issuePipeline: { maxCostUsd: CEILING_USD } });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
});

async function commentsOf(issue: number) {
  const { data } = await h.github.rest.issues.listComments({ ...REPO, issue_number: issue });
  return data;
}

describe('the issue pipeline follow-ups in the sandbox', () => {
  it("fails with the model's error and answer when the model refuses the key, and says so on the issue", async () => {
    // The triager's one call meets the fault: 401, as the API answers a key it does not accept.
    h.sandbox.modelFaults.add({ kind: 'key_rejected', count: 1 });
    const issue = await h.openIssue('Totals off by two cents', 'Rounding is wrong at checkout.');
    const id = pipelineIdFor(issue);
    const execution = await h.waitFor(
      () => h.driver.api<{ status?: string; error?: string; cause?: string }>(`/sandbox/executions/${id}`),
      (e) => e.status !== undefined && e.status !== 'RUNNING',
      `${id} to end`,
    );

    expectFailedWithRefusal(execution);
    const comments = await commentsOf(issue);
    expect(comments.map((c) => c.body).join('\n')).toContain(
      `stopped because its model could not serve it (ModelCallError: ${KEY_REJECTED_ANSWER})`,
    );
    expect((await h.store.getConversation(id))?.status).toBe('failed');
    expect(h.requestsOf(id)).toEqual([]);
  });

  it("ends blocked at the money ceiling from the ledger's priced cost, far below the token ceiling", async () => {
    const issue = await h.openIssue('Totals off by a cent', 'Rounding is wrong in the cart.');
    const id = pipelineIdFor(issue);
    h.script(id, [
      withUsage(
        toolUse('submit_triage', {
          type: 'BUG_FIX',
          scope: 'SMALL',
          complexity: 'simple',
          should_proceed: true,
        }),
        // 200,000 tokens of 1,500,000; priced $0.20 in + $1.00 out = $1.20, past the $1 ceiling.
        { input_tokens: 100_000, output_tokens: 100_000 },
      ),
    ]);
    const state = await h.waitFor(
      () => h.documents.load(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
    );
    expect(state.pipeline.status).toBe('blocked');
    expect(state.pipeline.blocked_reason).toContain(
      'estimated model cost reached $1.20, its ceiling is $1.00',
    );
    const ledger = (await h.store.getConversation(id, { consistent: true }))?.ledger;
    expect(ledger?.costMicroUsd).toBe(1_200_000);
    expect(h.requestsOf(id)).toHaveLength(1);
    await h.waitFor(
      () => commentsOf(issue),
      (cs) => cs.some((c) => c.body?.includes('**blocked**')),
      'the comment edited to blocked',
    );
  });

  it('answers a second agent label on a running pipeline on the issue, with its Slack thread and progress comment', async () => {
    const issue = await h.openIssue('Search ignores accents', 'Searching "cafe" misses "café".');
    const id = pipelineIdFor(issue);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.script(id, [
      async () => {
        await held;
        return toolUse('submit_triage', {
          type: 'BUG_FIX',
          scope: 'SMALL',
          complexity: 'simple',
          should_proceed: false,
          rejection_reason: 'Needs a product decision.',
        });
      },
    ]);
    // The progress comment is posted before triage's model call, which the script holds.
    const progress = await h.waitFor(
      () => h.documents.progress(id),
      (a) => a.commentId !== undefined && a.slack !== undefined,
      'the progress message and comment',
    );
    await h.github.rest.issues.removeLabel({ ...REPO, issue_number: issue, name: 'agent' });
    await h.github.rest.issues.addLabels({ ...REPO, issue_number: issue, labels: ['agent'] });
    const comments = await h.waitFor(
      () => commentsOf(issue),
      (cs) => cs.some((c) => c.body?.includes('already running')),
      'the answer on the issue',
    );
    const answer = comments.find((c) => c.body?.includes('already running'))?.body ?? '';
    const slack = progress.slack ?? { channel: '', ts: '' };
    expect(answer).toContain(`https://slack.com/archives/${slack.channel}/p${slack.ts.replace('.', '')}`);
    expect(answer).toContain(`/issues/${issue}#issuecomment-${progress.commentId}`);
    release();
    const state = await h.waitFor(
      () => h.documents.load(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
    );
    // One pipeline: the second label started nothing, triage ran once.
    expect(state.pipeline.status).toBe('completed');
    expect(h.requestsOf(id)).toHaveLength(1);
    expect((await commentsOf(issue)).filter((c) => c.body?.includes('already running'))).toHaveLength(1);
  });

  it("sets the conversation's phase at each hand-off, so each agent runs while the phase names its stage", async () => {
    const issue = await h.openIssue('Cart badge count stale', 'The badge shows the old count.');
    const id = pipelineIdFor(issue);
    const phases: string[] = [];
    const phaseNow = async () => {
      phases.push((await h.store.getConversation(id, { consistent: true }))?.phase ?? 'none');
    };
    h.script(id, [
      async () => {
        await phaseNow();
        return toolUse('submit_triage', {
          type: 'BUG_FIX',
          scope: 'SMALL',
          complexity: 'simple',
          should_proceed: true,
        });
      },
      async () => {
        await phaseNow();
        // Past the $1 ceiling: the next hand-off ends the pipeline before the writer.
        return withUsage(
          toolUse('submit_analysis', {
            brief: 'The badge reads a cached count.',
            files: [{ path: 'src/cart.ts', purpose: 'cart', action: 'modify' }],
            patterns: [],
            test_requirement: { required: false, type: 'none', location: null, description: 'None needed.' },
            must_do: ['Count from the cart, not the cache'],
            must_not_do: [],
          }),
          { output_tokens: 150_000 },
        );
      },
    ]);
    await h.waitFor(
      () => h.store.getConversation(id, { consistent: true }),
      (c) => c?.status === 'failed',
      'the pipeline marked blocked',
    );
    expect(h.requestsOf(id)).toHaveLength(2);
    expect(phases).toEqual(['triage', 'analyst']);
    expect((await h.store.getConversation(id, { consistent: true }))?.phase).toBe('blocked');
  });
});
