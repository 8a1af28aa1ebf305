import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { lastToolResults, toolResultText, toolUse, withUsage } from '../support/scripted-model.ts';
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
 * the sandbox: an issue of `demo/webshop` labelled `agent` runs the
 * pipeline with a scripted model playing each agent, the real code tools, the
 * emulated CodeBuild running the repository's tests, and the Committer opening the pull request.
 */

let h: IssueHarness;
beforeAll(async () => {
  h = await startIssueHarness({}, { buildMemo: true });
});
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
const analysisReply = submitAs('submit_analysis', {
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
});
const analysis: Step[] = [analysisReply];
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
  // The issue is the conversation's GitHub anchor (its id keeps only a digest of the origin).
  const anchors = Object.values((await h.store.getConversation(id))?.anchors ?? {});
  const issue = anchors.find((a) => a.channel.startsWith('github:'))?.threadTs;
  const { data } = await h.github.rest.pulls.list({
    ...REPO,
    state: 'all',
    head: `demo:agents/issue-${issue}`,
  });
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

describe('the issue pipeline in the sandbox', () => {
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
    // The console reads the same document beside the conversation's ledger.
    const { conversation } = await h.driver.api<{ conversation: { workflowDocument?: unknown } }>(
      `/sandbox/conversations/${encodeURIComponent(id)}`,
    );
    expect(conversation.workflowDocument).toEqual(state);
    const pull = await pullOf(id);
    expect(pull?.draft).toBe(true);
    expect(pull?.body).toContain(`Closes #${issue}`);
    expect(pull?.body).toContain('<details><summary>Pipeline state document</summary>');
    expect(pull?.labels.map((l) => l.name)).toContain('agent-pipeline');
    expect(state.commit.pr_url).toBe(pull?.html_url);
    expect(pull?.head.ref).toBe(`agents/issue-${issue}`);
    // The head it opened with is the one the build built.
    expect(pull?.head.sha).toBe(state.build.built_head);
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
  });

  it("sends the writer back twice with the reviewer's feedback, then opens the pull request on the third attempt", async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    const prompts: string[] = [];
    const seen = (prompt: string) => prompts.push(prompt);
    h.script(id, [
      ...triage(),
      ...analysis,
      ...writes(lineDiff(BUG_LINE, FIXED_LINE), seen),
      ...review('REJECTED', 'Name the regression in a comment (first review).'),
      ...writes(lineDiff(FIXED_LINE, `${FIXED_LINE} // VAT after discount`), seen),
      ...review('REJECTED', 'Use a block comment instead (second review).'),
      ...writes(
        lineDiff(`${FIXED_LINE} // VAT after discount`, `${FIXED_LINE} /* VAT after discount */`),
        seen,
      ),
      ...review('APPROVED'),
    ]);
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      240,
    );
    expect(state.pipeline.status).toBe('completed');
    expect(state.pipeline.attempt).toBe(3);
    expect(prompts).toHaveLength(3);
    expect(prompts[0]).not.toContain('first review');
    expect(prompts[1]).toContain('first review');
    expect(prompts[2]).toContain('second review');
    expect(prompts[2]).toContain('Attempt 3 of 3');
    expect((await pullOf(id))?.body).toContain(`Closes #${issue}`);
  });

  it('ends failed with the reason and the last feedback after three rejections, and opens nothing', async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    // The writer makes the three changes of the scenario above: the checks of a tree already
    // built in this run are replayed (buildMemo), and only the reviews differ.
    h.script(id, [
      ...triage(),
      ...analysis,
      ...writes(lineDiff(BUG_LINE, FIXED_LINE)),
      ...review('REJECTED', 'No (1).'),
      ...writes(lineDiff(FIXED_LINE, `${FIXED_LINE} // VAT after discount`)),
      ...review('REJECTED', 'No (2).'),
      ...writes(lineDiff(`${FIXED_LINE} // VAT after discount`, `${FIXED_LINE} /* VAT after discount */`)),
      ...review('REJECTED', 'Still not right (3).'),
    ]);
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      240,
    );
    expect(state.pipeline.status).toBe('failed');
    expect(state.pipeline.failure_reason).toBe('Writer-Reviewer loop exhausted after 3 attempts');
    expect(state.review.feedback_for_writer).toContain('Still not right (3).');
    expect(await pullOf(id)).toBeUndefined();
    const comments = await h.waitFor(
      () => commentsOf(issue),
      (cs) => cs.some((c) => c.body?.includes('**failed**')),
      'the comment edited to failed',
    );
    expect(comments.find((c) => c.body?.includes('**failed**'))?.body).toContain(
      'Writer-Reviewer loop exhausted',
    );
    // The conversation's status is written after the comment's edit: wait for it, not for a poll's luck.
    const conversation = await h.waitFor(
      () => h.store.getConversation(id),
      (c) => c?.status !== 'active',
      'the conversation to end',
    );
    expect(conversation?.status).toBe('failed');
  });

  it('stops when triage says not to proceed, saying why on the issue and in Slack', async () => {
    const issue = await h.openIssue('Redesign the whole shop', 'Make it nicer.');
    const id = pipelineIdFor(issue);
    h.script(id, triage(false));
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
    );
    expect(state.triage.should_proceed).toBe(false);
    expect(state.learnings.outcome).toContain('stopped by triage');
    const comments = await h.waitFor(
      () => commentsOf(issue),
      (cs) => cs.some((c) => c.body?.includes('product decision')),
      'the rejection on the issue',
    );
    expect(comments).toHaveLength(1);
    const [message] = await pipelineMessage(issue);
    expect(message?.text).toContain('product decision');
    expect(h.requestsOf(id)).toHaveLength(1);
    expect((await h.store.getConversation(id))?.status).toBe('closed');
  });

  it('sends a failing build back to the writer, but does not blame the change for a test that fails on the base commit too', async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    const broken = '  const vat: string = vatFor(subtotal, options.region);';
    let second = '';
    h.script(id, [
      ...triage(),
      ...analysis,
      ...writes(lineDiff(BUG_LINE, broken)),
      ...writes(lineDiff(broken, BUG_LINE.replace('subtotal', 'net')), (p) => {
        second = p;
      }),
      ...review('APPROVED'),
    ]);
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      300,
    );
    expect(state.pipeline.status).toBe('completed');
    expect(state.pipeline.attempt).toBe(2);
    // The first build: typecheck broke (the change's fault); the planted bug's test fails on main too.
    expect(second).toContain('Check \\"typecheck\\" exited');
    expect(second).not.toContain('Check \\"test\\" exited');
    const { data: main } = await h.github.rest.repos.getBranch({ ...REPO, branch: 'main' });
    const baseline = await h.documents.baseline('demo/webshop', main.commit.sha);
    expect(baseline?.results.checks.find((c) => c.name === 'test')?.exitCode).toBe(1);
    // The base built in a project of its own (the sandbox names a project by its logical id):
    // the branch's builds hold another project's role.
    const projects = new Set(
      (baseline?.results.buildIds ?? []).map((buildId) => buildId.split(':')[0] ?? ''),
    );
    expect([...projects]).toEqual([expect.stringMatching(/BaseChecksBuildProject[0-9A-F]{8}$/)]);
    expect(h.sandbox.codebuild.batchGetProjects([...projects]).projectsNotFound).toEqual([]);
  });

  it("asks people, ignores an answer from someone without write access, and goes on with a writer's issue comment", async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    let analystPrompt = '';
    h.script(id, [
      ...triage(),
      submitAs('submit_analysis', {
        brief: 'x',
        files: [{ path: DEMO_BUG.file, purpose: 'x', action: 'modify' }],
        patterns: [],
        test_requirement: { required: false, type: 'none', location: null, description: 'none' },
        must_do: ['x'],
        must_not_do: [],
        question: { to: 'people', question: 'Is VAT charged after the discount in every region?' },
      }),
      (request) => {
        analystPrompt = JSON.stringify(request.body.messages);
        return analysisReply;
      },
      ...writes(lineDiff(BUG_LINE, FIXED_LINE)),
      ...review('APPROVED'),
    ]);
    await h.waitFor(
      () => commentsOf(issue),
      (cs) => cs.some((c) => c.body?.includes('in every region?')),
      'the question on the issue',
    );
    const [message] = await pipelineMessage(issue);
    const thread = await h.messages(PIPELINE_CHANNEL, message?.ts);
    expect(thread.some((m) => m.bot && m.text.includes('in every region?'))).toBe(true);
    const { wait } =
      (await h.waitFor(
        () => h.store.getConversation(id, { consistent: true }),
        (c) => c?.wait !== undefined,
        'the wait for an answer',
      )) ?? {};
    await h.setPermission('a-reader', 'read');
    await h.comment(issue, 'No idea, sorry.', 'a-reader');
    // The reader's comment wakes the wait; the pipeline takes it, and waits again, unanswered.
    await h.waitFor(
      () => h.store.getConversation(id, { consistent: true }),
      (c) => c?.wait !== undefined && c.wait.waitId !== wait?.waitId,
      "the wait again after the reader's comment",
    );
    expect((await documentOf(id)).communication.questions[0]?.answered).toBe(false);
    await h.setPermission('a-writer', 'write');
    await h.comment(issue, 'Yes: VAT always applies to the discounted amount.', 'a-writer');
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      240,
    );
    expect(state.pipeline.status).toBe('completed');
    expect(state.communication.questions[0]).toMatchObject({ from: 'analyst', to: 'people', answered: true });
    expect(state.communication.questions[0]?.answer).toContain('always applies');
    expect(state.communication.questions[0]?.answer).not.toContain('No idea');
    expect(analystPrompt).toContain('always applies');
  });

  it("answers an agent's question by running the asked agent, then resumes the asker with the answer", async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    let writerPrompt = '';
    let analystAsked = '';
    h.script(id, [
      ...triage(),
      ...analysis,
      submitAs('submit_changes', {
        changes: [{ file: DEMO_BUG.file, description: 'not yet' }],
        test_written: false,
        summary: 'Asking first.',
        question: { to: 'analyst', question: 'Is net the amount after the discount?' },
      }),
      (request) => {
        analystAsked = JSON.stringify(request.body.messages);
        return submitAs('submit_answer', { answer: 'Yes: net is subtotal minus the discount.' });
      },
      ...writes(lineDiff(BUG_LINE, FIXED_LINE), (p) => {
        writerPrompt = p;
      }),
      ...review('APPROVED'),
    ]);
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      240,
    );
    expect(state.pipeline.status).toBe('completed');
    expect(analystAsked).toContain('Is net the amount after the discount?');
    expect(writerPrompt).toContain('net is subtotal minus the discount');
    expect(state.communication.questions[0]).toMatchObject({ from: 'writer', to: 'analyst', answered: true });
  });

  it("answers the reviewer's question without writing, and refuses a head that moved after the build", async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    const branch = `agents/issue-${issue}`;
    const headOf = async () => (await h.github.rest.repos.getBranch({ ...REPO, branch })).data.commit.sha;
    let answerTools: string[] = [];
    let refused = '';
    let afterAnswer = '';
    let moved = '';
    h.script(id, [
      ...triage(),
      ...analysis,
      ...writes(lineDiff(BUG_LINE, FIXED_LINE)),
      // After the green build the reviewer asks the writer.
      () => toolUse('get_diff', {}),
      submitAs('submit_review', {
        verdict: 'APPROVED',
        findings: { good: [], issues: [] },
        question: { to: 'writer', question: 'Is net the amount after the discount?' },
      }),
      // The writer's answer turn tries to commit, as its own turns may.
      (request) => {
        answerTools = (request.body.tools ?? []).map((tool) => ('name' in tool ? tool.name : ''));
        return toolUse('write_file', {
          path: DEMO_BUG.file,
          diff: lineDiff(FIXED_LINE, `${FIXED_LINE} // net`),
        });
      },
      (request) => {
        const [result] = lastToolResults(request.body);
        refused = result ? toolResultText(result) : '';
        return submitAs('submit_answer', { answer: 'Yes: net is subtotal minus the discount.' });
      },
      // Back to the reviewer: before its verdict, someone with push access moves the branch.
      async () => {
        afterAnswer = await headOf();
        moved = await pushOn(branch, afterAnswer, 'NOTES.md', 'pushed after the build\n');
        return submitAs('submit_review', {
          verdict: 'APPROVED',
          findings: { good: ['Minimal'], issues: [] },
        });
      },
    ]);
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      240,
    );
    // The answer could not write: its tools only read, and the branch stayed where it was built.
    expect(answerTools).not.toContain('write_file');
    expect(answerTools).not.toContain('delete_file');
    expect(refused).toContain('Unknown tool "write_file"');
    expect(afterAnswer).toBe(state.build.built_head);
    // The moved head was never built: no pull request, blocked with the reason.
    expect(state.pipeline.status).toBe('blocked');
    expect(state.pipeline.blocked_reason).toContain(
      `The work branch moved after its build (built ${afterAnswer.slice(0, 7)}, now ${moved.slice(0, 7)})`,
    );
    expect(state.pipeline.attempt).toBe(1);
    expect(await pullOf(id)).toBeUndefined();
  });

  it('sends an output that breaks the schema back to the agent twice, then ends blocked with the reason', async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    const bad = submitAs('submit_triage', {
      type: 'BUG_FIX',
      scope: 'HUGE',
      complexity: 'simple',
      should_proceed: true,
    });
    h.script(id, [bad, bad, bad]);
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
    );
    expect(state.pipeline.status).toBe('blocked');
    expect(state.pipeline.blocked_reason).toContain('The triage could not finish');
    expect(state.pipeline.blocked_reason).toContain('invalid 3 times');
    const [, second] = h.requestsOf(id);
    const [result] = second ? lastToolResults(second.body) : [];
    expect(result ? toolResultText(result) : '').toContain('does not match the schema of submit_triage');
  });

  it('ends blocked at the token ceiling, before the next agent runs', async () => {
    const issue = await h.openIssue(TITLE, BODY);
    const id = pipelineIdFor(issue);
    h.script(id, [
      withUsage(
        toolUse('submit_triage', {
          type: 'BUG_FIX',
          scope: 'SMALL',
          complexity: 'simple',
          should_proceed: true,
        }),
        { input_tokens: 1_600_000 },
      ),
    ]);
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
    );
    expect(state.pipeline.status).toBe('blocked');
    expect(state.pipeline.blocked_reason).toContain('its ceiling is 1,500,000');
    expect(h.requestsOf(id)).toHaveLength(1);
    const comments = await h.waitFor(
      () => commentsOf(issue),
      (cs) => cs.some((c) => c.body?.includes('**blocked**')),
      'the comment edited to blocked',
    );
    expect(comments).toHaveLength(1);
  });

  it('starts on /fix <number> from Slack, once per issue: a second /fix answers with where it runs', async () => {
    const issue = await h.openIssue('Not labelled', 'A vague wish.', []);
    const id = pipelineIdFor(issue);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.script(id, [
      async () => {
        await held;
        return triage(false)[0] as never;
      },
    ]);
    await fix(`${issue}`, 'trigger-1');
    const top = await h.waitFor(
      () => pipelineMessage(issue),
      (ms) => ms.length === 1,
      'the progress message of the /fix start',
    );
    await fix(`http://127.0.0.1/demo/webshop/issues/${issue}`, 'trigger-2');
    const answer = await h.waitFor(
      async () =>
        (await h.messages(PIPELINE_CHANNEL)).find(
          (m) => m.bot && m.text.includes(`#${issue} is already running`),
        ),
      (m) => m !== undefined,
      'the answer to the second /fix',
    );
    expect(answer?.text).toContain(
      `https://slack.com/archives/${PIPELINE_CHANNEL}/p${top[0]?.ts.replace('.', '')}`,
    );
    release();
    const state = await h.waitFor(
      () => documentOf(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
    );
    expect(state.learnings.outcome).toContain('stopped by triage');
    expect(h.requestsOf(id)).toHaveLength(1);
  });
});

/** `/fix <text>` typed by a developer in the pipeline's channel. */
async function fix(text: string, triggerId: string): Promise<void> {
  const response = await h.driver.slash({
    command: '/fix',
    text,
    channel: PIPELINE_CHANNEL,
    user: 'U_DEV',
    triggerId,
  });
  expect(response.status).toBe(200);
}

/** A commit over `parent` on `branch` adding `path`, pushed by the maintainer (not by the pipeline). */
async function pushOn(branch: string, parent: string, path: string, content: string): Promise<string> {
  const { data: base } = await h.github.rest.git.getCommit({ ...REPO, commit_sha: parent });
  const { data: tree } = await h.github.rest.git.createTree({
    ...REPO,
    base_tree: base.tree.sha,
    tree: [{ path, mode: '100644', type: 'blob', content }],
  });
  const { data: commit } = await h.github.rest.git.createCommit({
    ...REPO,
    message: `Add ${path}`,
    tree: tree.sha,
    parents: [parent],
  });
  await h.github.rest.git.updateRef({ ...REPO, ref: `heads/${branch}`, sha: commit.sha });
  return commit.sha;
}
