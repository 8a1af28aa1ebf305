import type { Octokit } from '@octokit/rest';
import { changedFilesSection } from '../../changes/changed-files.ts';
import { readBranchDiff } from '../../changes/read-branch-diff.ts';
import { testChanges, testChangesSection } from '../../changes/test-changes.ts';
import { unbuiltHead } from './built-head.ts';
import type { CommitOutput } from './contract.ts';
import type { IssueStateStore } from './ports.ts';
import type { IssueState } from './state.ts';

/**
 * The Committer, deterministic code and not a model: the final commit message, a
 * draft or ready pull request from the work branch with "Closes #n", the issue's labels, the
 * state document as a collapsed summary, and the pull request's URL recorded. It never merges,
 * and opens nothing unless the branch is still at the head the gate read and the build built.
 * Idempotent: a retry finds the pull request an earlier attempt opened for the same branch.
 */

const TITLE_CHARS = 72;
/** GitHub's body limit is 65,536 characters: the document is shortened well below it. */
const DOCUMENT_CHARS = 40_000;
/** The label every pipeline pull request carries. */
export const PIPELINE_LABEL = 'agent-pipeline';

const PREFIX: Record<NonNullable<IssueState['issue']['type']>, string> = {
  BUG_FIX: 'fix',
  NEW_FEATURE: 'feat',
  REFACTOR_STYLE: 'refactor',
};

/** The final commit message: conventional type, the issue's title and number, the writer's summary. */
function commitMessage(state: IssueState): string {
  const type = state.issue.type ? PREFIX[state.issue.type] : 'fix';
  const first = `${type}: ${state.issue.title} (#${state.issue.number})`;
  const title = first.length <= TITLE_CHARS ? first : `${first.slice(0, TITLE_CHARS - 1)}…`;
  return `${title}\n\n${state.writer.summary}\n\nCloses #${state.issue.number}`;
}

/**
 * What people approved before the pull request (a change to protected paths, a failing check
 * let through), who and when: the first line of each request, the approver's Slack user id.
 */
function approvalsSection(state: IssueState): string[] {
  const approved = state.communication.escalations.filter((e) => e.decided?.decision === 'approve');
  if (approved.length === 0) return [];
  const lines = approved.map((e) => {
    const what = (e.reason.split('\n')[0] ?? '').replace(/[,:]? so a person decides.*$|:$/, '');
    return `- ${what}: approved in Slack by user \`${e.decided?.by}\`${e.decided?.at ? ` at ${e.decided.at}` : ''}`;
  });
  return ['## Approved by people', lines.join('\n')];
}

/**
 * The body: the writer's summary, the files the branch really changes (`files`, from GitHub's
 * comparison: never the writer's own list), the checks with their commands and origin, who
 * approved what a person had to, the review, and the state document.
 */
function pullRequestBody(state: IssueState, message: string, files: string): string {
  const json = JSON.stringify(state, null, 2);
  const document = json.length <= DOCUMENT_CHARS ? json : `${json.slice(0, DOCUMENT_CHARS)}\n… (shortened)`;
  const checks = state.build.commands_run
    .map(
      (c) =>
        `- \`${c.command}\`${c.source ? ` (${c.source})` : ''}: ${c.exit_code === 0 ? 'passed' : `exit ${c.exit_code ?? 'none'}`}${c.pre_existing ? ` (fails on the base commit too${c.judged ? `: ${c.judged}` : ''})` : ''}`,
    )
    .join('\n');
  return [
    message.split('\n').slice(2).join('\n'),
    '## Files changed (from the branch, not from the agents)',
    files,
    `Test: ${state.writer.test_written ? (state.writer.test_file ?? 'written') : 'none'}`,
    '## Checks',
    ...(state.build.built_head
      ? [`Of commit \`${state.build.built_head}\`, the head this pull request opened with.`]
      : []),
    checks || 'No checks ran.',
    ...approvalsSection(state),
    `## Review\n${state.review.verdict ?? 'none'} after ${state.pipeline.attempt} writer attempt(s).`,
    `<details><summary>Pipeline state document</summary>\n\n\`\`\`json\n${document}\n\`\`\`\n\n</details>`,
    '_Opened by the issue pipeline: the change was written by agents. Review before merging._',
  ].join('\n\n');
}

/** GitHub's answers that are a refusal (nothing a retry changes), by HTTP status. */
const REFUSALS = new Set([401, 403, 404, 409, 422]);

export async function runCommitter(
  conversationId: string,
  deps: {
    octokit: Octokit;
    store: IssueStateStore;
    repository: { owner: string; repo: string };
    draft: boolean;
    /** The trigger label, not copied onto the pull request. */
    triggerLabel: string;
  },
): Promise<CommitOutput> {
  const state = await deps.store.load(conversationId);
  const { octokit, repository } = deps;
  const branch = state.commit.branch;
  const message = commitMessage(state);
  try {
    const { data: head } = await octokit.rest.repos.getBranch({ ...repository, branch });
    const existing = await octokit.rest.pulls.list({
      ...repository,
      state: 'open',
      head: `${repository.owner}:${branch}`,
    });
    let pull = existing.data[0];
    const checked = state.commit.checked_head;
    if (pull === undefined && checked && head.commit.sha !== checked)
      return refuse(
        state,
        `The work branch moved after its changes were checked (checked ${checked.slice(0, 7)}, now ${head.commit.sha.slice(0, 7)}), so no pull request is opened: what would be merged is not what was checked.`,
      );
    // The hand-off held it already (the gate's head was the built one); held here too, on the
    // head the pull request would open with.
    const unbuilt = pull === undefined ? unbuiltHead(state, head.commit.sha) : undefined;
    if (unbuilt !== undefined) return refuse(state, unbuilt);
    if (pull === undefined) {
      const { data: repo } = await octokit.rest.repos.get(repository);
      const diff = await readBranchDiff(octokit, repository, repo.default_branch, branch);
      pull = (
        await octokit.rest.pulls.create({
          ...repository,
          head: branch,
          base: repo.default_branch,
          title: message.split('\n')[0] ?? `Issue #${state.issue.number}`,
          body: pullRequestBody(
            state,
            message,
            changedFilesSection(diff, 100, testChangesSection(testChanges(diff))),
          ),
          draft: deps.draft,
        })
      ).data as (typeof existing.data)[number];
    }
    const labels = [PIPELINE_LABEL, ...state.issue.labels.filter((l) => l !== deps.triggerLabel)];
    await octokit.rest.issues.addLabels({ ...repository, issue_number: pull.number, labels });
    state.commit = {
      completed: true,
      hash: head.commit.sha,
      message,
      branch,
      pushed: true,
      pr_created: true,
      pr_url: pull.html_url,
      issue_closed: false,
    };
    state.pipeline.status = 'completed';
    state.learnings.outcome = `pull request opened: ${pull.html_url}`;
    await deps.store.save(conversationId, state);
    return { opened: true, url: pull.html_url };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status !== 'number' || !REFUSALS.has(status)) throw error;
    const reason = `GitHub refused the pull request (${status}): ${(error instanceof Error ? error.message : String(error)).slice(0, 500)}`;
    return refuse(state, reason);
  }

  async function refuse(state: IssueState, reason: string): Promise<CommitOutput> {
    state.pipeline.status = 'blocked';
    state.pipeline.blocked_reason = reason;
    state.learnings.outcome = `blocked: ${reason}`;
    await deps.store.save(conversationId, state);
    return { opened: false, reason };
  }
}
