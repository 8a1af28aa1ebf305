import * as z from 'zod';
import { GitHubApiError, notFound, unprocessable } from './errors.ts';
import type { Events } from './events.ts';
import { authorAssociation } from './issue-views.ts';
import type { Route, RouterDeps } from './router.ts';
import { paged } from './routes-issues.ts';
import type { GitHubStore, IssueRecord, RepoRecord, ReviewRecord } from './store.ts';
import type { Views } from './views.ts';

const CreateReview = z.object({
  body: z.string().optional(),
  event: z.enum(['APPROVE', 'REQUEST_CHANGES', 'COMMENT']).optional(),
  commit_id: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
});

const STATE_OF_EVENT = {
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED',
} as const;

export function reviewView(views: Views, repo: RepoRecord, issue: IssueRecord, review: ReviewRecord) {
  const html = `${views.issueHtml(repo, issue)}#pullrequestreview-${review.id}`;
  const pullUrl = `${views.repoApi(repo)}/pulls/${issue.number}`;
  return {
    id: review.id,
    node_id: views.nodeId('PullRequestReview', review.id),
    user: views.userByLogin(review.user),
    body: review.body,
    state: review.state,
    html_url: html,
    pull_request_url: pullUrl,
    _links: { html: { href: html }, pull_request: { href: pullUrl } },
    ...(review.submittedAt ? { submitted_at: review.submittedAt } : {}),
    commit_id: review.commitId,
    author_association: authorAssociation(repo, review.user),
  };
}

/**
 * Submits a review as `user` and sends `pull_request_review.submitted` (a review without an
 * event stays pending and sends nothing, as on GitHub). Nobody approves or rejects their own
 * pull request.
 */
export async function submitReview(
  deps: { store: GitHubStore; events: Events },
  repo: RepoRecord,
  issue: IssueRecord,
  input: z.infer<typeof CreateReview>,
  user: string,
): Promise<ReviewRecord> {
  const pull = issue.pull;
  if (!pull) throw notFound();
  if (input.event && input.event !== 'COMMENT' && issue.user.toLowerCase() === user.toLowerCase()) {
    throw unprocessable(
      input.event === 'APPROVE'
        ? 'Can not approve your own pull request'
        : 'Can not request changes on your own pull request',
    );
  }
  if ((input.event === 'REQUEST_CHANGES' || input.event === 'COMMENT') && !input.body) {
    throw unprocessable(`Unprocessable Entity: body is required for ${input.event}`);
  }
  const head = (await repo.git.ref(`refs/heads/${pull.head}`))?.sha ?? pull.headSha;
  const review: ReviewRecord = {
    id: deps.store.nextId(),
    pullNumber: issue.number,
    user,
    body: input.body ?? '',
    state: input.event ? STATE_OF_EVENT[input.event] : 'PENDING',
    commitId: input.commit_id ?? head,
    submittedAt: input.event ? deps.store.timestamp() : undefined,
  };
  repo.reviews.set(review.id, review);
  if (input.event) await deps.events.review(repo, issue, review, user);
  return review;
}

/** Pull request reviews: submit one (approve, request changes, comment) and list them. */
export function reviewRoutes(deps: RouterDeps, events: Events): Route[] {
  const { store, views } = deps;
  const pullOf = (repo: RepoRecord, number: string | undefined) => {
    const issue = repo.issues.get(Number(number));
    if (!issue?.pull) throw new GitHubApiError(404, 'Not Found');
    return issue;
  };
  return [
    {
      method: 'POST',
      path: '/repos/:owner/:repo/pulls/:number/reviews',
      access: 'read',
      handler: async ({ repo, params, body, login }) => {
        const issue = pullOf(repo, params.number);
        const review = await submitReview(
          { store, events },
          repo,
          issue,
          CreateReview.parse(body ?? {}),
          login,
        );
        return { status: 200, body: reviewView(views, repo, issue, review) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/pulls/:number/reviews',
      access: 'read',
      handler: async ({ repo, params, query }) => {
        const issue = pullOf(repo, params.number);
        const reviews = [...repo.reviews.values()].filter((r) => r.pullNumber === issue.number);
        return paged(reviews, query, (r) => reviewView(views, repo, issue, r));
      },
    },
  ];
}

export { CreateReview };
