import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { toolUse } from '../support/scripted-model.ts';
import {
  type IssueHarness,
  PIPELINE_CHANNEL,
  pipelineIdFor,
  progressThreadOf,
  REPO,
  type Step,
  startIssueHarness,
  submitAs,
} from './issue-harness.ts';

/**
 * sensitive paths: a change to a configured path waits for an approver's button
 * (the kernel's approval wait) before the Committer runs. Its own file: one sandbox per process.
 */

const BUG_LINE = '  const vat = vatFor(subtotal, options.region);';
const FIXED_LINE = '  const vat = vatFor(net, options.region);';
const TITLE = 'Checkout totals too high with a discount code';
const BODY = 'VAT is charged before the discount.';
const lineDiff = (before: string, after: string) =>
  `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${before}\n+${after}\n`;
const steps: Step[] = [
  submitAs('submit_triage', { type: 'BUG_FIX', scope: 'SMALL', complexity: 'simple', should_proceed: true }),
  submitAs('submit_analysis', {
    brief: 'Compute VAT on net.',
    files: [{ path: DEMO_BUG.file, purpose: 'checkout totals', action: 'modify' }],
    patterns: [],
    test_requirement: { required: false, type: 'none', location: null, description: 'covered' },
    must_do: ['VAT on net'],
    must_not_do: [],
  }),
  () => toolUse('write_file', { path: DEMO_BUG.file, diff: lineDiff(BUG_LINE, FIXED_LINE) }),
  submitAs('submit_changes', {
    changes: [{ file: DEMO_BUG.file, description: 'VAT on net' }],
    test_written: false,
    summary: 'VAT on net.',
  }),
  () => toolUse('get_diff', {}),
  submitAs('submit_review', { verdict: 'APPROVED', findings: { good: ['small'], issues: [] } }),
];

describe('the issue pipeline with sensitive paths in the sandbox', () => {
  let s: IssueHarness;
  beforeAll(async () => {
    s = await startIssueHarness(
      { issuePipeline: { sensitivePaths: ['src/checkout.ts'] } },
      { buildMemo: true },
    );
  });
  afterAll(async () => {
    await s?.stop();
    expect(s?.modelFailures ?? []).toEqual([]);
  });

  type Button = { action_id: string; value: string; text?: { text: string } };
  async function press(user: string, ts: string, button: Button) {
    const response = await s.driver.press({
      channel: PIPELINE_CHANNEL,
      user,
      messageTs: ts,
      actionId: button.action_id,
      value: button.value,
    });
    expect(response.ok).toBe(true);
  }

  it("waits for an approver's button before the Committer opens the pull request", async () => {
    const issue = await s.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    s.script(id, steps);
    const thread = await progressThreadOf(s, issue);
    const ask = await s.waitFor(
      async () =>
        (await s.messages(PIPELINE_CHANNEL, thread)).find((m) => m.bot && m.text.includes(':lock:')),
      (m) => m !== undefined,
      'the approval request in the thread',
      240,
    );
    expect(ask?.text).toContain('src/checkout.ts');
    const message = s.sandbox.slack.workspace.find(PIPELINE_CHANNEL, ask?.ts ?? '');
    const blocks = (message.blocks ?? []) as { type: string; elements?: Button[] }[];
    const buttons = blocks.find((b) => b.type === 'actions')?.elements ?? [];
    expect(buttons).toHaveLength(2);
    // Nothing is opened before the press.
    expect((await s.documents.load(id)).commit.pr_created).toBe(false);
    const approve = buttons.find((b) => b.value.includes('approve')) ?? buttons[0];
    if (!approve) throw new Error('no Approve button');
    await press('U_DEV', ask?.ts ?? '', approve);
    const state = await s.waitFor(
      () => s.documents.load(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      60,
    );
    expect(state.pipeline.status).toBe('completed');
    expect(state.communication.escalations[0]).toMatchObject({ agent: 'reviewer', resolved: true });
    const { data } = await s.github.rest.pulls.list({
      ...REPO,
      state: 'all',
      head: `demo:agents/issue-${issue}`,
    });
    expect(data[0]?.body).toContain(`Closes #${issue}`);
  });
});
