import type { CommentRecord, IssueRecord, LabelRecord, RepoRecord } from './store.ts';
import type { Views } from './views.ts';

/**
 * GitHub's JSON objects of a repository's conversations: issues (and pull requests seen as
 * issues), their comments and labels, and how their authors relate to the repository
 * (`author_association`). Built from the store through `Views` (local/github/views.ts), which
 * makes the URLs, users and node ids they share with the other objects.
 */

export function labelView(views: Views, repo: RepoRecord, label: LabelRecord) {
  return {
    id: label.id,
    node_id: views.nodeId('Label', label.id),
    url: `${views.repoApi(repo)}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: label.default,
    description: label.description,
  };
}

/** An issue (or a pull request seen as an issue, with its `pull_request` links). */
export function issueView(views: Views, repo: RepoRecord, issue: IssueRecord) {
  const r = views.repoApi(repo);
  const url = `${r}/issues/${issue.number}`;
  return {
    id: issue.id,
    node_id: views.nodeId(issue.pull ? 'PullRequestIssue' : 'Issue', issue.id),
    url,
    repository_url: r,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: views.issueHtml(repo, issue),
    number: issue.number,
    state: issue.state,
    state_reason: issue.stateReason,
    title: issue.title,
    body: issue.body,
    user: views.userByLogin(issue.user),
    labels: issue.labels.flatMap((name) => {
      const label = repo.labels.get(name.toLowerCase());
      return label ? [labelView(views, repo, label)] : [];
    }),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: issue.comments,
    ...(issue.pull
      ? {
          pull_request: {
            url: `${r}/pulls/${issue.number}`,
            html_url: views.issueHtml(repo, issue),
            diff_url: `${views.issueHtml(repo, issue)}.diff`,
            patch_url: `${views.issueHtml(repo, issue)}.patch`,
            merged_at: null,
          },
        }
      : {}),
    draft: issue.pull?.draft ?? false,
    closed_at: issue.closedAt,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_by: null,
    author_association: authorAssociation(repo, issue.user),
    performed_via_github_app: null,
    reactions: reactions(`${url}/reactions`),
    timeline_url: `${url}/timeline`,
  };
}

export function commentView(views: Views, repo: RepoRecord, comment: CommentRecord) {
  const issue = repo.issues.get(comment.issueNumber);
  const url = `${views.repoApi(repo)}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: views.nodeId('IssueComment', comment.id),
    url,
    html_url: `${issue ? views.issueHtml(repo, issue) : views.repoHtml(repo)}#issuecomment-${comment.id}`,
    body: comment.body,
    user: views.userByLogin(comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    issue_url: `${views.repoApi(repo)}/issues/${comment.issueNumber}`,
    author_association: authorAssociation(repo, comment.user),
    // GitHub names the App here when an installation wrote the comment; the emulator does not
    // describe the App's whole integration object, and null is what a person's comment has.
    performed_via_github_app: null,
    reactions: reactions(`${url}/reactions`),
  };
}

/** How `login` relates to the repository, as an issue's, comment's or review's `author_association`. */
export function authorAssociation(repo: RepoRecord, login: string): string {
  if (login.toLowerCase() === repo.owner.toLowerCase()) return 'OWNER';
  const permission = repo.collaborators.get(login.toLowerCase());
  return permission && permission !== 'none' ? 'COLLABORATOR' : 'NONE';
}

function reactions(url: string) {
  return {
    url,
    total_count: 0,
    '+1': 0,
    '-1': 0,
    laugh: 0,
    confused: 0,
    heart: 0,
    hooray: 0,
    eyes: 0,
    rocket: 0,
  };
}
