import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, expect } from 'vitest';
import { type IssueHarness, type Step, startIssueHarness, submitAs } from '../sandbox/issue-harness.ts';
import type { RecordedModelRequest } from '../support/scripted-model.ts';

/** Set-up shared by the attacks that edit a comment on an issue whose pipeline waits for an answer. */

/** Starts the issue harness for the file and stops it after, with no model failure left over. */
export function issueHarnessForFile(): { readonly h: IssueHarness } {
  const holder = {} as { h: IssueHarness };
  beforeAll(async () => {
    holder.h = await startIssueHarness();
  });
  afterAll(async () => {
    await holder.h?.stop();
    expect(holder.h?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
  });
  return holder;
}

/** The analyst's answer asking `question` of people, for a small change of src/checkout.ts. */
export const askingAnalysis = (brief: string, mustDo: string) => (question: string) =>
  submitAs('submit_analysis', {
    brief,
    files: [{ path: 'src/checkout.ts', purpose: 'totals', action: 'modify' }],
    patterns: [],
    test_requirement: { required: false, type: 'none', location: null, description: 'none' },
    must_do: [mustDo],
    must_not_do: [],
    question: { to: 'people', question },
  });

/**
 * Triage, then an analysis asking `question`; when the pipeline resumes, the messages the analyst
 * resumed with are kept (`resumed()`) and it asks again, so the scenario ends waiting.
 */
export function askThenKeepResumed(
  analysis: (question: string) => ReturnType<typeof submitAs>,
  question: string,
) {
  let resumed = '';
  const steps: Step[] = [
    submitAs('submit_triage', {
      type: 'BUG_FIX',
      scope: 'SMALL',
      complexity: 'simple',
      should_proceed: true,
    }),
    analysis(question),
    (request: RecordedModelRequest) => {
      resumed = JSON.stringify(request.body.messages);
      return analysis('Anything else?');
    },
  ];
  return { steps, resumed: () => resumed };
}

/** Waits until GitHub's clock (whole seconds) is past `iso`, so an edit gets an `updated_at` of its own. */
export async function pastSecondOf(h: IssueHarness, iso: string, what = 'a second later'): Promise<void> {
  await h.waitFor(
    async () => new Date().toISOString().slice(0, 19),
    (now) => now > iso.slice(0, 19),
    what,
  );
}

/** A GitHub client acting as `login`. */
export function octokitAs(h: IssueHarness, login: string): Octokit {
  return new Octokit({ baseUrl: h.sandbox.github.apiUrl, auth: h.sandbox.github.createUserToken(login) });
}

/** The `issue_comment.edited` delivery GitHub sent for comment `commentId`, once the webhooks settled. */
export async function editDeliveryOf(h: IssueHarness, commentId: number) {
  await h.sandbox.github.webhooks.settled();
  return h.sandbox.github.webhooks
    .deliveries()
    .find(
      (d) =>
        d.event === 'issue_comment' &&
        d.action === 'edited' &&
        (d.payload.comment as { id?: number } | undefined)?.id === commentId,
    );
}
