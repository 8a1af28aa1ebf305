import * as z from 'zod';
import { GitHubApiError, notFound } from './errors.ts';
import type { Events } from './events.ts';
import { commentView, issueView, labelView } from './issue-views.ts';
import type { Reply, Route, RouteContext, RouterDeps } from './router.ts';
import type { CommentRecord, GitHubStore, IssueRecord, LabelRecord, RepoRecord } from './store.ts';

const LabelInput = z.union([
  z.string().min(1),
  z.object({ name: z.string().min(1) }).transform((l) => l.name),
]);
const CreateIssue = z.object({
  title: z.union([z.string().min(1), z.number().transform(String)]),
  body: z.string().nullable().optional(),
  labels: z.array(LabelInput).optional(),
});
const UpdateIssue = z.object({
  title: z.string().min(1).optional(),
  body: z.string().nullable().optional(),
  state: z.enum(['open', 'closed']).optional(),
  state_reason: z.enum(['completed', 'not_planned', 'reopened']).nullable().optional(),
  labels: z.array(LabelInput).optional(),
});
const CommentBody = z.object({ body: z.string().min(1) });
const AddLabels = z.union([
  z.object({ labels: z.array(LabelInput).min(1) }).transform((b) => b.labels),
  z.array(LabelInput).min(1),
]);

/**
 * Paging as GitHub does it: `per_page` (at most 100, 30 by default) and `page` from 1. The router
 * turns `pagination` into the `Link` header that Octokit's `paginate` follows.
 */
export async function paged<T>(
  items: readonly T[],
  query: URLSearchParams,
  view: (item: T) => unknown,
): Promise<Reply> {
  const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30) || 30));
  const pageNumber = Math.max(1, Number(query.get('page') ?? 1) || 1);
  const slice = items.slice((pageNumber - 1) * perPage, pageNumber * perPage);
  return {
    status: 200,
    body: await Promise.all(slice.map(view)),
    pagination: { page: pageNumber, perPage, total: items.length },
  };
}

/** The label by name, created (grey, no description) if the repository has none: GitHub does that too. */
export function ensureLabel(store: GitHubStore, repo: RepoRecord, name: string): LabelRecord {
  let label = repo.labels.get(name.toLowerCase());
  if (!label) {
    label = { id: store.nextId(), name, color: 'ededed', description: null, default: false };
    repo.labels.set(name.toLowerCase(), label);
  }
  return label;
}

/** Adds labels to an issue, sending `labeled` for each one it did not have. */
export async function addLabels(
  deps: { store: GitHubStore; events: Events },
  repo: RepoRecord,
  issue: IssueRecord,
  names: readonly string[],
  sender: string,
): Promise<void> {
  for (const name of names) {
    const label = ensureLabel(deps.store, repo, name);
    if (issue.labels.some((l) => l.toLowerCase() === label.name.toLowerCase())) continue;
    issue.labels.push(label.name);
    issue.updatedAt = deps.store.timestamp();
    await deps.events.issue('labeled', repo, issue, sender, { label });
  }
}

export function issueOf(repo: RepoRecord, number: string | undefined): IssueRecord {
  const issue = repo.issues.get(Number(number));
  if (!issue) throw notFound('/issues/issues#get-an-issue');
  return issue;
}

/** Opens an issue as `user` (the API and the sandbox's own endpoint both come here). */
export async function openIssue(
  deps: { store: GitHubStore; events: Events },
  repo: RepoRecord,
  input: { title: string; body?: string | null | undefined; labels?: readonly string[] | undefined },
  user: string,
): Promise<IssueRecord> {
  const now = deps.store.timestamp();
  const issue: IssueRecord = {
    number: repo.nextNumber++,
    id: deps.store.nextId(),
    title: input.title,
    body: input.body ?? null,
    state: 'open',
    stateReason: null,
    user,
    labels: [],
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    comments: 0,
  };
  repo.issues.set(issue.number, issue);
  await deps.events.issue('opened', repo, issue, user);
  await addLabels(deps, repo, issue, input.labels ?? [], user);
  return issue;
}

export function addComment(
  deps: { store: GitHubStore; events: Events },
  repo: RepoRecord,
  issue: IssueRecord,
  body: string,
  user: string,
): CommentRecord {
  const now = deps.store.timestamp();
  const comment: CommentRecord = {
    id: deps.store.nextId(),
    issueNumber: issue.number,
    user,
    body,
    createdAt: now,
    updatedAt: now,
  };
  repo.comments.set(comment.id, comment);
  issue.comments += 1;
  issue.updatedAt = now;
  deps.events.comment('created', repo, issue, comment, user);
  return comment;
}

/** Issues, their comments and labels. A pull request is an issue too, as on GitHub. */
export function issueRoutes(deps: RouterDeps, events: Events): Route[] {
  const { store, views } = deps;
  const withEvents = { store, events };
  const canEdit = (ctx: RouteContext, author: string) => {
    if (
      ctx.permission !== 'write' &&
      ctx.permission !== 'admin' &&
      ctx.login.toLowerCase() !== author.toLowerCase()
    ) {
      throw new GitHubApiError(403, 'Must have admin rights to Repository.');
    }
  };
  return [
    {
      method: 'GET',
      path: '/repos/:owner/:repo/issues',
      access: 'read',
      handler: async ({ repo, query }) => {
        const state = query.get('state') ?? 'open';
        const labels = (query.get('labels') ?? '')
          .split(',')
          .filter(Boolean)
          .map((l) => l.toLowerCase());
        const issues = [...repo.issues.values()]
          .filter((i) => state === 'all' || i.state === state)
          .filter((i) => labels.every((l) => i.labels.some((x) => x.toLowerCase() === l)))
          .sort((a, b) => (query.get('direction') === 'asc' ? a.number - b.number : b.number - a.number));
        return paged(issues, query, (i) => issueView(views, repo, i));
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/issues',
      access: 'read',
      handler: async (ctx) => {
        const input = CreateIssue.parse(ctx.body);
        // GitHub silently drops the labels of someone who may not triage.
        const labels = ctx.permission === 'write' || ctx.permission === 'admin' ? input.labels : [];
        const issue = await openIssue(withEvents, ctx.repo, { ...input, labels }, ctx.login);
        return { status: 201, body: issueView(views, ctx.repo, issue) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/issues/:number',
      access: 'read',
      handler: async ({ repo, params }) => ({
        status: 200,
        body: issueView(views, repo, issueOf(repo, params.number)),
      }),
    },
    {
      method: 'PATCH',
      path: '/repos/:owner/:repo/issues/:number',
      access: 'read',
      handler: async (ctx) => {
        const { repo } = ctx;
        const issue = issueOf(repo, ctx.params.number);
        canEdit(ctx, issue.user);
        const input = UpdateIssue.parse(ctx.body);
        await updateIssue({ store, events }, repo, issue, input, ctx.login);
        return { status: 200, body: issueView(views, repo, issue) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/issues/:number/comments',
      access: 'read',
      handler: async ({ repo, params, query }) => {
        const issue = issueOf(repo, params.number);
        const comments = [...repo.comments.values()].filter((c) => c.issueNumber === issue.number);
        return paged(comments, query, (c) => commentView(views, repo, c));
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/issues/:number/comments',
      access: 'read',
      handler: async ({ repo, params, body, login }) => {
        const issue = issueOf(repo, params.number);
        const comment = addComment(withEvents, repo, issue, CommentBody.parse(body).body, login);
        return { status: 201, body: commentView(views, repo, comment) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/issues/comments/:id',
      access: 'read',
      handler: async ({ repo, params }) => {
        const comment = repo.comments.get(Number(params.id));
        if (!comment) throw notFound('/issues/comments#get-an-issue-comment');
        return { status: 200, body: commentView(views, repo, comment) };
      },
    },
    {
      method: 'PATCH',
      path: '/repos/:owner/:repo/issues/comments/:id',
      access: 'read',
      handler: async (ctx) => {
        const { repo } = ctx;
        const comment = repo.comments.get(Number(ctx.params.id));
        if (!comment) throw notFound('/issues/comments#update-an-issue-comment');
        canEdit(ctx, comment.user);
        const { body } = CommentBody.parse(ctx.body);
        const from = comment.body;
        comment.body = body;
        comment.updatedAt = store.timestamp();
        const issue = issueOf(repo, String(comment.issueNumber));
        events.comment('edited', repo, issue, comment, ctx.login, { body: { from } });
        return { status: 200, body: commentView(views, repo, comment) };
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/issues/:number/labels',
      access: 'write',
      handler: async ({ repo, params, body, login }) => {
        const issue = issueOf(repo, params.number);
        await addLabels(withEvents, repo, issue, AddLabels.parse(body), login);
        return { status: 200, body: labelsOf(repo, issue).map((l) => labelView(views, repo, l)) };
      },
    },
    {
      method: 'DELETE',
      path: '/repos/:owner/:repo/issues/:number/labels/:name',
      access: 'write',
      handler: async ({ repo, params, login }) => {
        const issue = issueOf(repo, params.number);
        const name = (params.name ?? '').toLowerCase();
        const index = issue.labels.findIndex((l) => l.toLowerCase() === name);
        const label = repo.labels.get(name);
        if (index === -1 || !label) throw new GitHubApiError(404, 'Label does not exist');
        issue.labels.splice(index, 1);
        issue.updatedAt = store.timestamp();
        await events.issue('unlabeled', repo, issue, login, { label });
        return { status: 200, body: labelsOf(repo, issue).map((l) => labelView(views, repo, l)) };
      },
    },
  ];
}

/** Title, body, state and labels of an issue or pull request, with the webhooks of each change. */
export async function updateIssue(
  deps: { store: GitHubStore; events: Events },
  repo: RepoRecord,
  issue: IssueRecord,
  input: z.infer<typeof UpdateIssue>,
  sender: string,
): Promise<void> {
  const changes: Record<string, { from: string | null }> = {};
  if (input.title !== undefined && input.title !== issue.title) {
    changes.title = { from: issue.title };
    issue.title = input.title;
  }
  if (input.body !== undefined && input.body !== issue.body) {
    // The webhook schema wants a string here; a body that was never set was empty.
    changes.body = { from: issue.body ?? '' };
    issue.body = input.body;
  }
  const now = deps.store.timestamp();
  issue.updatedAt = now;
  if (Object.keys(changes).length > 0) await deps.events.issue('edited', repo, issue, sender, { changes });
  if (input.state && input.state !== issue.state) {
    issue.state = input.state;
    issue.closedAt = input.state === 'closed' ? now : null;
    issue.stateReason = input.state === 'closed' ? (input.state_reason ?? 'completed') : 'reopened';
    await deps.events.issue(input.state === 'closed' ? 'closed' : 'reopened', repo, issue, sender);
  }
  if (input.labels) {
    const wanted = new Set(input.labels.map((l) => l.toLowerCase()));
    for (const name of [...issue.labels]) {
      if (wanted.has(name.toLowerCase())) continue;
      issue.labels = issue.labels.filter((l) => l !== name);
      const label = repo.labels.get(name.toLowerCase());
      if (label) await deps.events.issue('unlabeled', repo, issue, sender, { label });
    }
    await addLabels(deps, repo, issue, input.labels, sender);
  }
}

export { UpdateIssue };

function labelsOf(repo: RepoRecord, issue: IssueRecord): LabelRecord[] {
  return issue.labels.flatMap((name) => {
    const label = repo.labels.get(name.toLowerCase());
    return label ? [label] : [];
  });
}
