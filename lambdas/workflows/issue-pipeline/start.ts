import { randomUUID } from 'node:crypto';
import type { Octokit } from '@octokit/rest';
import type { StartInput, StartOutput } from './contract.ts';
import { NotAnIssueError } from './errors.ts';
import { block } from './hand-off.ts';
import { notesFor } from './notes.ts';
import type { IssueStateStore } from './ports.ts';
import { initialState } from './state.ts';

/**
 * The pipeline's start ("Initializing State"): reads the issue from GitHub, notes
 * the base commit the change will be judged against, and stores the initial document. A
 * retried start overwrites a document no agent has touched yet.
 */
export async function startPipeline(
  input: StartInput,
  deps: {
    octokit: Octokit;
    store: IssueStateStore;
    now: () => Date;
    maxAttempts: number;
    /** The work branches' prefix (the code tools'), e.g. `agents/`: the branch is `<prefix>issue-<n>`. */
    branchPrefix: string;
    newSessionId?: () => string;
    /**
     * Records the branch as the conversation's own, so the code tools write there and nowhere
     * else. @default - not recorded (the code tools then refuse the branch)
     */
    workBranches?: { record(conversationId: string, branch: string): Promise<void> };
    /**
     * Why who started the pipeline may not (start-authority.ts), or undefined when they may.
     * @default - nobody is refused
     */
    startRefusal?: (ownerId: string) => Promise<string | undefined>;
  },
): Promise<StartOutput> {
  const [owner, repo] = input.origin.repository.split('/') as [string, string];
  const { data: issue } = await deps.octokit.rest.issues.get({
    owner,
    repo,
    issue_number: input.origin.number,
  });
  if (issue.pull_request) throw new NotAnIssueError(`#${issue.number} is a pull request, not an issue`);
  const { data: repository } = await deps.octokit.rest.repos.get({ owner, repo });
  const { data: base } = await deps.octokit.rest.repos.getBranch({
    owner,
    repo,
    branch: repository.default_branch,
  });
  const branch = `${deps.branchPrefix}issue-${issue.number}`;
  const state = initialState({
    issue: {
      number: issue.number,
      title: issue.title.slice(0, 300),
      url: issue.html_url,
      type: null,
      original_body: (issue.body ?? '').slice(0, 20_000),
      labels: issue.labels
        .map((label) => (typeof label === 'string' ? label : (label.name ?? '')))
        .filter(Boolean),
    },
    startedAt: deps.now().toISOString(),
    maxAttempts: deps.maxAttempts,
    branch,
  });
  // Who started it is checked before any agent reads the issue: a refusal ends the pipeline
  // blocked, with the reason on the issue and in Slack (its progress message).
  const refusal =
    input.ownerId === undefined || deps.startRefusal === undefined
      ? undefined
      : await deps.startRefusal(input.ownerId);
  const blocked = refusal === undefined ? undefined : block(state, refusal);
  await deps.store.save(input.conversationId, blocked?.state ?? state);
  if (blocked === undefined) await deps.workBranches?.record(input.conversationId, branch);
  const session = deps.newSessionId ?? randomUUID;
  return {
    number: issue.number,
    url: issue.html_url,
    branch,
    baseSha: base.commit.sha,
    sessions: { triage: session(), analyst: session(), writer: session(), reviewer: session() },
    handOff: blocked?.handOff ?? { next: 'triage', attempt: 0, notes: notesFor('triage', state) },
  };
}
