import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import {
  type IssueHarness,
  PIPELINE_CHANNEL,
  pipelineIdFor,
  REPO,
  startIssueHarness,
} from './issue-harness.ts';

/**
 * What `npm run dev` does without model credentials: labelling an issue of
 * `demo/webshop` runs the pipeline with the offline demo model playing each agent, to a draft
 * pull request that fixes the planted bug, its build green.
 */

let h: IssueHarness;
beforeAll(async () => {
  h = await startIssueHarness({}, { model: 'demo', buildMemo: true });
});
afterAll(async () => {
  await h?.stop();
});

describe('the issue pipeline with the offline demo model', () => {
  it('takes a labelled issue of demo/webshop to a draft pull request, every agent labelled as the demo', async () => {
    const issue = await h.openIssue(
      'Checkout totals are too high with a discount code',
      'With a discount code the checkout charges VAT on the subtotal before the discount.',
    );
    const id = pipelineIdFor(issue);
    const state = await h.waitFor(
      () => h.documents.load(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end of the demo pipeline',
      240,
    );
    expect(state.pipeline.status).toBe('completed');
    expect(state.analysis.brief).toContain(DEMO_LABEL);
    expect(state.analysis.brief).toContain(`${DEMO_BUG.file}:${DEMO_BUG.line}`);
    expect(state.writer.summary).toContain(DEMO_LABEL);
    expect(state.build.tests_passed).toBe(true);
    const { data } = await h.github.rest.pulls.list({
      ...REPO,
      state: 'all',
      head: `demo:agents/issue-${issue}`,
    });
    expect(data[0]?.draft).toBe(true);
    expect(data[0]?.body).toContain(`Closes #${issue}`);
    // The document says completed as the Committer ends; the message is edited right after.
    await h.waitFor(
      () => h.messages(PIPELINE_CHANNEL),
      (ms) => ms.some((m) => m.bot === true && m.text.includes(`#${issue} `) && m.text.includes('done')),
      'the progress message edited to done',
    );
  });
});
