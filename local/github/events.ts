import type { Auth } from './auth.ts';
import { authorAssociation, commentView, issueView, labelView } from './issue-views.ts';
import type {
  CommentRecord,
  GitHubStore,
  IssueRecord,
  LabelRecord,
  RepoRecord,
  ReviewRecord,
} from './store.ts';
import type { Views } from './views.ts';
import type { Webhooks } from './webhooks.ts';

/**
 * The webhooks of what happens in the emulator, shaped like GitHub's payloads: the subject
 * (`issue`, `comment`, `pull_request`), the `repository`, the `sender` and the App's
 * `installation`, plus `label` or `changes` for the actions that carry them.
 */
export class Events {
  constructor(
    private readonly deps: { store: GitHubStore; views: Views; webhooks: Webhooks; auth: Auth },
    /** Builds a pull request's JSON (it needs git for its head, base and stats). */
    private readonly pullView: (repo: RepoRecord, issue: IssueRecord) => Promise<Record<string, unknown>>,
  ) {}

  private common(repo: RepoRecord, sender: string) {
    const { views, auth } = this.deps;
    return {
      repository: views.repository(repo),
      sender: views.userByLogin(sender),
      installation: {
        id: auth.app.installationId,
        node_id: views.nodeId('Installation', auth.app.installationId),
      },
    };
  }

  /** `issues` or `pull_request`, whichever the record is. */
  async issue(
    action: 'opened' | 'edited' | 'closed' | 'reopened' | 'labeled' | 'unlabeled',
    repo: RepoRecord,
    issue: IssueRecord,
    sender: string,
    extra: { label?: LabelRecord; changes?: Record<string, { from: string | null }> } = {},
  ): Promise<void> {
    const { views, webhooks } = this.deps;
    const details = {
      ...(extra.label ? { label: labelView(views, repo, extra.label) } : {}),
      ...(extra.changes ? { changes: extra.changes } : {}),
    };
    if (issue.pull) {
      void webhooks.emit('pull_request', {
        action,
        number: issue.number,
        pull_request: await this.pullView(repo, issue),
        ...details,
        ...this.common(repo, sender),
      });
      return;
    }
    void webhooks.emit('issues', {
      action,
      issue: issueView(views, repo, issue),
      ...details,
      ...this.common(repo, sender),
    });
  }

  comment(
    action: 'created' | 'edited',
    repo: RepoRecord,
    issue: IssueRecord,
    comment: CommentRecord,
    sender: string,
    changes?: { body: { from: string } },
  ): void {
    const { views, webhooks } = this.deps;
    void webhooks.emit('issue_comment', {
      action,
      issue: issueView(views, repo, issue),
      comment: commentView(views, repo, comment),
      ...(changes ? { changes } : {}),
      ...this.common(repo, sender),
    });
  }

  /** `pull_request_review.submitted`; the webhook spells the state in lower case, unlike the REST API. */
  async review(repo: RepoRecord, issue: IssueRecord, review: ReviewRecord, sender: string): Promise<void> {
    const { views, webhooks } = this.deps;
    const html = `${views.issueHtml(repo, issue)}#pullrequestreview-${review.id}`;
    const pullUrl = `${views.repoApi(repo)}/pulls/${issue.number}`;
    void webhooks.emit('pull_request_review', {
      action: 'submitted',
      review: {
        id: review.id,
        node_id: views.nodeId('PullRequestReview', review.id),
        user: views.userByLogin(review.user),
        body: review.body,
        commit_id: review.commitId,
        submitted_at: review.submittedAt,
        state: review.state.toLowerCase(),
        html_url: html,
        pull_request_url: pullUrl,
        author_association: authorAssociation(repo, review.user),
        _links: { html: { href: html }, pull_request: { href: pullUrl } },
      },
      pull_request: await this.pullView(repo, issue),
      ...this.common(repo, sender),
    });
  }
}
