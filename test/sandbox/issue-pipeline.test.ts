import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { lastToolResults, toolResultText, toolUse } from '../../local/model/scripted-model.ts';
import {
  type IssueHarness,
  PIPELINE_CHANNEL,
  pipelineIdFor,
  REPO,
  type Step,
  startIssueHarness,
  submitAs,
} from './issue-harness.ts';

/**
 * Issue 17's acceptance in the sandbox: an issue of `demo/webshop` labelled `agent` runs the
 * pipeline (seed 001) with a scripted model playing each agent, the real code tools, the
 * emulated CodeBuild running the repository's tests, and the Committer opening the pull request.
 */

let h: IssueHarness;
beforeAll(async () => {
  h = await startIssueHarness();
}, 120_000);
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
});

const BUG_LINE = '  const vat = vatFor(subtotal, options.region);';
const FIXED_LINE = '  const vat = vatFor(net, options.region);';
const TITLE = 'Checkout totals too high with a discount code';
const BODY =
  'With SAVE10 in region DE, 2 T-shirts cost 48.53 instead of 47.77: VAT is charged before the discount.';
const lineDiff = (before: string, after: string) =>
  `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${before}\n+${after}\n`;

const triage = (proceed = true): Step[] => [
  submitAs('submit_triage', {
    type: 'BUG_FIX',
    scope: 'SMALL',
    complexity: 'simple',
    should_proceed: proceed,
    ...(proceed ? {} : { rejection_reason: 'This needs a product decision, not a code change.' }),
  }),
];
const analysis: Step[] = [
  submitAs('submit_analysis', {
    brief: `VAT is computed on the subtotal at ${DEMO_BUG.file}:${DEMO_BUG.line}; compute it on net.`,
    files: [{ path: DEMO_BUG.file, purpose: 'checkout totals', action: 'modify' }],
    patterns: ['Money is in cents'],
    test_requirement: {
      required: true,
      type: 'regression',
      location: 'test/checkout.test.ts',
      description: 'VAT on the discounted amount',
    },
    must_do: ['Charge VAT on the amount after the discount'],
    must_not_do: ['Do not change the discount rules'],
  }),
];
const writes = (diff: string, seen?: (prompt: string) => void): Step[] => [
  (request) => {
    seen?.(JSON.stringify(request.body.messages));
    return toolUse('write_file', { path: DEMO_BUG.file, diff });
  },
  (request) => {
    const [result] = lastToolResults(request.body);
    expect(result ? toolResultText(result) : '').toContain('Committed');
    return submitAs('submit_changes', {
      changes: [{ file: DEMO_BUG.file, description: 'VAT on net' }],
      test_written: true,
      test_file: 'test/checkout.test.ts',
      summary: `Charge VAT on net at ${DEMO_BUG.file}:${DEMO_BUG.line}.`,
    });
  },
];
const review = (verdict: 'APPROVED' | 'REJECTED', feedback?: string): Step[] => [
  () => toolUse('get_diff', {}),
  submitAs('submit_review', {
    verdict,
    findings: { good: ['Minimal change'], issues: [] },
    ...(feedback ? { feedback_for_writer: feedback } : {}),
  }),
];

async function pullOf(id: string) {
  const { data } = await h.github.rest.pulls.list({ ...REPO, state: 'all', head: `demo:agents/${id}` });
  return data[0];
}

async function pipelineMessage(issue: number) {
  const messages = await h.messages(PIPELINE_CHANNEL);
  return messages.filter((m) => m.bot && m.text.includes(`#${issue} `));
}

async function commentsOf(issue: number) {
  const { data } = await h.github.rest.issues.listComments({ ...REPO, issue_number: issue });
  return data;
}

async function documentOf(id: string) {
  return h.documents.load(id);
}

describe('the issue pipeline (issue 17) in the sandbox', () => {
  it('takes a labelled issue to a draft pull request with "Closes #n", and shows done in Slack and on the issue', async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    h.script(id, [
      ...triage(),
      ...analysis,
      ...writes(lineDiff(BUG_LINE, FIXED_LINE)),
      ...review('APPROVED'),
    ]);
    const state = await h.waitFor(
      () => documentOf(id),
      (doc) => doc.pipeline.status !== 'in_progress',
      'the pipeline to end',
      240,
    );
    expect(state.pipeline.status).toBe('completed');
    const pull = await pullOf(id);
    expect(pull?.draft).toBe(true);
    expect(pull?.body).toContain(`Closes #${issue}`);
    expect(pull?.body).toContain('<details><summary>Pipeline state document</summary>');
    expect(pull?.labels.map((l) => l.name)).toContain('agent-pipeline');
    expect(state.commit.pr_url).toBe(pull?.html_url);
    const files = (await h.github.rest.pulls.listFiles({ ...REPO, pull_number: pull?.number ?? 0 })).data;
    expect(files.map((f) => f.filename)).toEqual([DEMO_BUG.file]);
    const slack = await h.waitFor(
      () => pipelineMessage(issue),
      (ms) => ms.length === 1 && (ms[0]?.text.includes('done') ?? false),
      'the one Slack message updated to done',
    );
    expect(slack[0]?.text).toContain(pull?.html_url ?? 'missing');
    const comments = await commentsOf(issue);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain('**done**');
    expect(comments[0]?.body).toContain(pull?.html_url ?? 'missing');
  }, 300_000);
});
