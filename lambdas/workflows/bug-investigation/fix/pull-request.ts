import type { Octokit } from '@octokit/rest';
import { changedFilesSection } from '../../../changes/changed-files.ts';
import { readBranchDiff } from '../../../changes/read-branch-diff.ts';
import { testChanges, testChangesSection } from '../../../changes/test-changes.ts';
import { withoutMarkers } from '../../../shared/markers.ts';
import type { OpenPullRequestInput, PullRequestOutcome } from './contract.ts';
import { bugWorkBranch } from './work-branch.ts';

/**
 * Opens the fix's draft pull request: deterministic code, not the model. Idempotent: a retried
 * task finds the pull request an earlier attempt opened for the same head. A GitHub refusal
 * (no commits on the branch, no permission, a missing repository) is an outcome with the
 * reason, which the workflow posts in both threads; only transient failures throw.
 */

const TITLE_CHARS = 72;

/** A Slack link to the findings thread (Slack redirects it to the workspace). */
export function slackThreadLink(thread: { channel: string; threadTs: string }): string {
  return `https://slack.com/archives/${thread.channel}/p${thread.threadTs.replace('.', '')}`;
}

function pullRequestTitle(input: OpenPullRequestInput): string {
  // Internal markers (the demo model's label) stay out of a title people read in GitHub.
  const text = withoutMarkers(input.findings.fix?.description ?? input.fixSummary);
  const first = text.split('\n')[0]?.trim() || 'Bug fix';
  const title = `Fix: ${first}`;
  return title.length <= TITLE_CHARS ? title : `${title.slice(0, TITLE_CHARS - 1)}…`;
}

/**
 * The body: the findings, the fixer's summary, the files the branch really changes (from
 * GitHub's comparison, `files`; never from the agent) and the checks with their commands.
 */
function pullRequestBody(input: OpenPullRequestInput, files?: string): string {
  const { findings } = input;
  return [
    `Draft pull request opened by Bug Bot for bug \`${input.conversationId}\`${input.requestedBy ? `, as asked by Slack user ${input.requestedBy}` : ''}.`,
    `Slack thread: ${slackThreadLink(input.thread)}`,
    '## Findings',
    findings.summary,
    ...(findings.rootCause ? ['**Root cause:**', findings.rootCause] : []),
    ...(findings.severity ? [`**Severity:** ${findings.severity}`] : []),
    '## The change',
    input.fixSummary,
    ...(files === undefined ? [] : ['## Files changed (from the branch, not from the agent)', files]),
    '## Checks',
    input.build.summary,
    '_Review before merging: the change was written by an agent._',
  ].join('\n\n');
}

/** GitHub's answers that are a refusal (nothing a retry changes), by HTTP status. */
const REFUSALS = new Set([401, 403, 404, 409, 422]);

export async function openFixPullRequest(
  octokit: Octokit,
  repository: { owner: string; repo: string },
  input: OpenPullRequestInput,
): Promise<PullRequestOutcome> {
  // The head is the bug's own work branch and nothing else, whatever the state carried.
  const expected = bugWorkBranch(input.conversationId);
  if (input.branch !== expected) {
    return {
      opened: false,
      reason: `Refused to open a pull request from ${input.branch}: this bug's work branch is ${expected}.`,
    };
  }
  try {
    if (input.checkedHead !== undefined) {
      const { data: head } = await octokit.rest.repos.getBranch({ ...repository, branch: input.branch });
      if (head.commit.sha !== input.checkedHead)
        return {
          opened: false,
          reason: `the branch ${input.branch} changed after its diff was checked (checked ${input.checkedHead.slice(0, 7)}, now ${head.commit.sha.slice(0, 7)}), so nothing unchecked is proposed.`,
        };
    }
    const existing = await octokit.rest.pulls.list({
      ...repository,
      state: 'open',
      head: `${repository.owner}:${input.branch}`,
    });
    const found = existing.data[0];
    if (found !== undefined) return { opened: true, url: found.html_url, number: found.number };
    const { data: repo } = await octokit.rest.repos.get(repository);
    const diff = await readBranchDiff(octokit, repository, repo.default_branch, input.branch);
    const { data: pull } = await octokit.rest.pulls.create({
      ...repository,
      head: input.branch,
      base: repo.default_branch,
      title: pullRequestTitle(input),
      body: pullRequestBody(input, changedFilesSection(diff, 100, testChangesSection(testChanges(diff)))),
      draft: true,
    });
    return { opened: true, url: pull.html_url, number: pull.number };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && REFUSALS.has(status)) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        opened: false,
        reason: `GitHub refused the pull request (${status}): ${message.slice(0, 500)}`,
      };
    }
    throw error;
  }
}
