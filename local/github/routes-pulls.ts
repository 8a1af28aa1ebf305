import * as z from 'zod';
import { GitHubApiError, notFound } from './errors.ts';
import type { Events } from './events.ts';
import { issueView } from './issue-views.ts';
import type { Route, RouterDeps } from './router.ts';
import { paged, updateIssue } from './routes-issues.ts';
import type { IssueRecord, RepoRecord } from './store.ts';
import type { Views } from './views.ts';

const CreatePull = z.object({
  title: z.string().min(1),
  head: z.string().min(1),
  base: z.string().min(1),
  body: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  maintainer_can_modify: z.boolean().optional(),
});
const UpdatePull = z.object({
  title: z.string().min(1).optional(),
  body: z.string().nullable().optional(),
  state: z.enum(['open', 'closed']).optional(),
  base: z.string().min(1).optional(),
  maintainer_can_modify: z.boolean().optional(),
});

function validationFailed(field: string, code: string, message?: string): GitHubApiError {
  return new GitHubApiError(422, 'Validation Failed', {
    errors: [{ resource: 'PullRequest', field, code, ...(message ? { message } : {}) }],
  });
}

/** `owner:branch` or `branch` -> the branch, when the owner is this repository's. */
function headBranch(repo: RepoRecord, head: string): string | undefined {
  const colon = head.indexOf(':');
  if (colon === -1) return head;
  return head.slice(0, colon).toLowerCase() === repo.owner.toLowerCase() ? head.slice(colon + 1) : undefined;
}

/**
 * The pull request's JSON. Head and base are read from their branches now (as GitHub shows a
 * pull request's current state), falling back to the last seen commits when a branch is gone.
 */
export async function pullView(views: Views, repo: RepoRecord, issue: IssueRecord, full = true) {
  const pull = issue.pull;
  if (!pull) throw notFound();
  pull.headSha = (await repo.git.ref(`refs/heads/${pull.head}`))?.sha ?? pull.headSha;
  pull.baseSha = (await repo.git.ref(`refs/heads/${pull.base}`))?.sha ?? pull.baseSha;
  const r = views.repoApi(repo);
  const url = `${r}/pulls/${issue.number}`;
  const html = views.issueHtml(repo, issue);
  const asIssue = issueView(views, repo, issue);
  const owner = views.userByLogin(repo.owner);
  const side = (ref: string, sha: string) => ({
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: owner,
    repo: views.repository(repo),
  });
  const link = (href: string) => ({ href });
  const base = {
    url,
    id: issue.pullId ?? issue.id,
    node_id: views.nodeId('PullRequest', issue.pullId ?? issue.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${r}/issues/${issue.number}`,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${r}/pulls/comments{/number}`,
    comments_url: `${r}/issues/${issue.number}/comments`,
    statuses_url: `${r}/statuses/${pull.headSha}`,
    number: issue.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: asIssue.user,
    body: issue.body,
    labels: asIssue.labels,
    milestone: null,
    active_lock_reason: null,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pull.head, pull.headSha),
    base: side(pull.base, pull.baseSha),
    _links: {
      self: link(url),
      html: link(html),
      issue: link(`${r}/issues/${issue.number}`),
      comments: link(`${r}/issues/${issue.number}/comments`),
      review_comments: link(`${url}/comments`),
      review_comment: link(`${r}/pulls/comments{/number}`),
      commits: link(`${url}/commits`),
      statuses: link(`${r}/statuses/${pull.headSha}`),
    },
    author_association: asIssue.author_association,
    auto_merge: null,
    draft: pull.draft,
  };
  if (!full) return base;
  const mergeBase = (await repo.git.mergeBase(pull.baseSha, pull.headSha)) ?? pull.baseSha;
  const files = await repo.git.diff(mergeBase, pull.headSha);
  const commits = await repo.git.commitsBetween(pull.baseSha, pull.headSha);
  return {
    ...base,
    merged: false,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    comments: issue.comments,
    review_comments: 0,
    maintainer_can_modify: pull.maintainerCanModify,
    commits: commits.length,
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    changed_files: files.length,
  };
}

function pullOf(repo: RepoRecord, number: string | undefined): IssueRecord {
  const issue = repo.issues.get(Number(number));
  if (!issue?.pull) throw notFound('/pulls/pulls#get-a-pull-request');
  return issue;
}

/** Pull requests: open (draft or not), read, list, edit, and their files. Merging is not emulated. */
export function pullRoutes(deps: RouterDeps, events: Events): Route[] {
  const { store, views } = deps;
  return [
    {
      method: 'POST',
      path: '/repos/:owner/:repo/pulls',
      access: 'write',
      handler: async ({ repo, body, login }) => {
        const input = CreatePull.parse(body);
        const baseSha = (await repo.git.ref(`refs/heads/${input.base}`))?.sha;
        if (!baseSha) throw validationFailed('base', 'invalid');
        const head = headBranch(repo, input.head);
        const headSha = head ? (await repo.git.ref(`refs/heads/${head}`))?.sha : undefined;
        if (!head || !headSha) throw validationFailed('head', 'invalid');
        if ((await repo.git.commitsBetween(baseSha, headSha)).length === 0) {
          throw validationFailed('', 'custom', `No commits between ${input.base} and ${head}`);
        }
        const existing = [...repo.issues.values()].find(
          (i) => i.state === 'open' && i.pull?.head === head && i.pull.base === input.base,
        );
        if (existing)
          throw validationFailed('', 'custom', `A pull request already exists for ${repo.owner}:${head}.`);
        const now = store.timestamp();
        const issue: IssueRecord = {
          number: repo.nextNumber++,
          id: store.nextId(),
          pullId: store.nextId(),
          title: input.title,
          body: input.body ?? null,
          state: 'open',
          stateReason: null,
          user: login,
          labels: [],
          createdAt: now,
          updatedAt: now,
          closedAt: null,
          comments: 0,
          pull: {
            head,
            base: input.base,
            headSha,
            baseSha,
            draft: input.draft ?? false,
            maintainerCanModify: input.maintainer_can_modify ?? false,
          },
        };
        repo.issues.set(issue.number, issue);
        await events.issue('opened', repo, issue, login);
        return { status: 201, body: await pullView(views, repo, issue) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/pulls',
      access: 'read',
      handler: async ({ repo, query }) => {
        const state = query.get('state') ?? 'open';
        const head = query.get('head');
        const base = query.get('base');
        const pulls = [...repo.issues.values()]
          .filter((i) => i.pull && (state === 'all' || i.state === state))
          .filter((i) => !head || (headBranch(repo, head) ?? '\0') === i.pull?.head)
          .filter((i) => !base || base === i.pull?.base)
          .sort((a, b) => (query.get('direction') === 'asc' ? a.number - b.number : b.number - a.number));
        return paged(pulls, query, (i) => pullView(views, repo, i, false));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/pulls/:number',
      access: 'read',
      handler: async ({ repo, params }) => ({
        status: 200,
        body: await pullView(views, repo, pullOf(repo, params.number)),
      }),
    },
    {
      method: 'PATCH',
      path: '/repos/:owner/:repo/pulls/:number',
      access: 'write',
      handler: async ({ repo, params, body, login }) => {
        const issue = pullOf(repo, params.number);
        const input = UpdatePull.parse(body);
        const pull = issue.pull;
        if (pull && input.base !== undefined && input.base !== pull.base) {
          const baseSha = (await repo.git.ref(`refs/heads/${input.base}`))?.sha;
          if (!baseSha) throw validationFailed('base', 'invalid');
          pull.base = input.base;
          pull.baseSha = baseSha;
        }
        if (pull && input.maintainer_can_modify !== undefined)
          pull.maintainerCanModify = input.maintainer_can_modify;
        const { base: _base, maintainer_can_modify: _m, ...rest } = input;
        await updateIssue({ store, events }, repo, issue, rest, login);
        return { status: 200, body: await pullView(views, repo, issue) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/pulls/:number/files',
      access: 'read',
      handler: async ({ repo, params, query }) => {
        const issue = pullOf(repo, params.number);
        const pull = await pullView(views, repo, issue, false);
        const mergeBase = (await repo.git.mergeBase(pull.base.sha, pull.head.sha)) ?? pull.base.sha;
        const files = await repo.git.diff(mergeBase, pull.head.sha);
        return paged(files, query, (f) => views.diffEntry(repo, pull.head.sha, f));
      },
    },
  ];
}
