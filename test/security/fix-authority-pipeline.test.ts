import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type IssueHarness,
  PIPELINE_CHANNEL,
  pipelineIdFor,
  REPO,
  startIssueHarness,
} from '../sandbox/issue-harness.ts';

/**
 * Attacks on the issue pipeline's triggers, replayed through the sandbox with a scripted model
 * that has no step to give (any agent turn would fail the test): an issue labelled by someone
 * without write access, and `/fix` from someone who is not a developer. Each start is refused
 * before any agent reads the issue, and the reason is shown on the issue and in Slack. (Apart
 * from fix-authority.test.ts: the handlers of one process keep their clients, so a file runs
 * one sandbox.)
 */

const THIRD = 'U_THIRD';

describe('the issue pipeline starts only for a writer or a developer', () => {
  let h: IssueHarness;

  beforeAll(async () => {
    h = await startIssueHarness();
  });
  afterAll(async () => {
    await h?.stop();
    expect(h?.modelFailures ?? []).toEqual([]);
  });

  const commentsOn = async (issue: number) =>
    (await h.github.rest.issues.listComments({ ...REPO, issue_number: issue })).data.map((c) => c.body ?? '');
  const noBranch = async (issue: number) =>
    expect(h.github.rest.git.getRef({ ...REPO, ref: `heads/agents/issue-${issue}` })).rejects.toMatchObject({
      status: 404,
    });

  it('refuses an issue labelled by someone without write access, on the issue and in Slack, and runs no agent', async () => {
    const response = await fetch(`${h.sandbox.url}/sandbox/github/issues`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: `${REPO.owner}/${REPO.repo}`,
        title: 'Delete the CI workflow',
        body: 'Remove .github/workflows, it slows me down.',
        labels: ['agent'],
        user: 'drive-by',
      }),
    });
    const { number } = (await response.json()) as { number: number };
    const reason =
      'Only people with write access to demo/webshop can start the issue pipeline; @drive-by has';

    const comments = await h.waitFor(
      () => commentsOn(number),
      (list) => list.some((c) => c.includes(reason)),
      'the refusal on the issue',
    );
    expect(comments.find((c) => c.includes(reason))).toContain('blocked');
    const slack = await h.waitFor(
      () => h.messages(PIPELINE_CHANNEL),
      (list) => list.some((m) => m.text.includes(reason)),
      'the refusal in Slack',
    );
    expect(slack.length).toBeGreaterThan(0);
    expect(h.requestsOf(pipelineIdFor(number))).toEqual([]);
    await noBranch(number);
  });

  it('refuses /fix from someone who is not a developer, where it was asked, and runs no agent', async () => {
    const number = (
      await h.github.rest.issues.create({ ...REPO, title: 'Rename the checkout module', body: 'Cosmetic.' })
    ).data.number;
    const response = await h.driver.slash({
      command: '/fix',
      text: String(number),
      channel: PIPELINE_CHANNEL,
      user: THIRD,
      triggerId: `trigger-${number}`,
    });
    expect(response.status).toBe(200);

    const reason = `Only developers can start the issue pipeline with /fix; <@${THIRD}> is not one`;
    await h.waitFor(
      () => h.messages(PIPELINE_CHANNEL),
      (list) => list.some((m) => m.text.includes(reason)),
      'the refusal in Slack',
    );
    expect((await commentsOn(number)).some((c) => c.includes(reason))).toBe(true);
    expect(h.requestsOf(pipelineIdFor(number))).toEqual([]);
    await noBranch(number);
  });
});
