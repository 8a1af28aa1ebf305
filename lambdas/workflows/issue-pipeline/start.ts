import { randomUUID } from 'node:crypto';
import type { Octokit } from '@octokit/rest';
import type { StoredMessage } from '../../kernel/model.ts';
import type { StartInput, StartOutput } from './contract.ts';
import { NotAnIssueError } from './errors.ts';
import { block } from './hand-off.ts';
import { notesFor } from './notes.ts';
import type { IssueStateStore } from './ports.ts';
import { initialState } from './state.ts';

/**
 * The pipeline's start ("Initializing State"): reads the issue from GitHub (its body as the
 * starting label's delivery carried it, when a label started it), notes
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
    /**
     * The issue's body as the event that started the pipeline carried it: a label's signed
     * delivery, kept as the conversation's opening message. Undefined when no event carried one
     * (`/fix` from Slack). @default - none: the body is GitHub's when the pipeline reads it
     */
    labelledBody?: () => Promise<string | undefined>;
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
      // A label is a maintainer's word on the issue as it was then: an edit by its author in the
      // moments before this read must not change the task the agents are given.
      original_body: ((await deps.labelledBody?.()) ?? issue.body ?? '').slice(0, 20_000),
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

/**
 * The body a starting label's delivery carried, when a GitHub user (the labeller) started the
 * pipeline: the conversation's opening message is the earliest of the issue's own events (a
 * later edit of the issue is stored after it), whose first line is the Router's header with the
 * title and whose rest is the body (kernel/route-external.ts). Undefined for a start from Slack,
 * whose opening message is the command.
 */
export function labelledBodyOf(
  ownerId: string | undefined,
  messages: readonly StoredMessage[],
): string | undefined {
  if (ownerId?.startsWith('github:') !== true) return undefined;
  // GitHub events' ts are fixed-width (10 digits, a dot, 20 digits): their text order is their time order.
  const opening = messages
    .filter(
      (m) =>
        m.messageType === 'message' && m.senderId.startsWith('github:') && m.text.startsWith(ISSUE_EVENT),
    )
    .sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0))[0];
  if (opening === undefined) return undefined;
  const lineEnd = opening.text.indexOf('\n');
  return lineEnd === -1 ? '' : opening.text.slice(lineEnd + 1);
}

/** How the Router's text of an issue's own event begins (its title follows on the same line). */
const ISSUE_EVENT = '[GitHub issue ';
