import type { Auth } from './auth.ts';
import type { CommentRecord, GitHubStore, IssueRecord, LabelRecord, RepoRecord } from './store.ts';
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
      ...(extra.label ? { label: views.label(repo, extra.label) } : {}),
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
      issue: views.issue(repo, issue),
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
      issue: views.issue(repo, issue),
      comment: views.comment(repo, comment),
      ...(changes ? { changes } : {}),
      ...this.common(repo, sender),
    });
  }
}
