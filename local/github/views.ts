import type { ComparedFile } from './git-compare-diff.ts';
import type { GitCommit, GitDiffFile } from './git-repository.ts';
import type { GitHubStore, GitHubUser, IssueRecord, Permission, RepoRecord } from './store.ts';

/**
 * GitHub's JSON objects of users, repositories and git data, built from the store, and the
 * URLs and node ids that every object shares (issues, comments and labels: issue-views.ts).
 * `api` is the REST base (`.../api/v3`); `html` is where the sandbox shows things to people
 * (`/sandbox/github/...`), which the html_url fields point at.
 */
export class Views {
  readonly api: string;
  readonly html: string;

  constructor(
    readonly baseUrl: string,
    private readonly store: GitHubStore,
  ) {
    this.api = `${baseUrl}/api/v3`;
    this.html = `${baseUrl}/sandbox/github`;
  }

  nodeId(kind: string, id: number | string): string {
    return Buffer.from(`0${kind.length}:${kind}${id}`).toString('base64');
  }

  user(user: GitHubUser): Record<string, unknown> {
    // A bot's login has brackets (`name[bot]`), escaped in URLs as GitHub does (`name%5Bbot%5D`).
    const u = `${this.api}/users/${encodeURIComponent(user.login)}`;
    return {
      login: user.login,
      id: user.id,
      node_id: this.nodeId(user.type === 'Bot' ? 'Bot' : 'User', user.id),
      avatar_url: `${this.html}/avatars/${encodeURIComponent(user.login)}`,
      gravatar_id: '',
      url: u,
      html_url: `${this.html}/users/${encodeURIComponent(user.login)}`,
      followers_url: `${u}/followers`,
      following_url: `${u}/following{/other_user}`,
      gists_url: `${u}/gists{/gist_id}`,
      starred_url: `${u}/starred{/owner}{/repo}`,
      subscriptions_url: `${u}/subscriptions`,
      organizations_url: `${u}/orgs`,
      repos_url: `${u}/repos`,
      events_url: `${u}/events{/privacy}`,
      received_events_url: `${u}/received_events`,
      type: user.type,
      site_admin: false,
      user_view_type: 'public',
    };
  }

  userByLogin(login: string): Record<string, unknown> {
    return this.user(this.store.user(login));
  }

  repoApi(repo: RepoRecord): string {
    return `${this.api}/repos/${repo.fullName}`;
  }

  repoHtml(repo: RepoRecord): string {
    return `${this.html}/repos/${repo.fullName}`;
  }

  permissions(permission: Permission) {
    const rank = { none: 0, read: 1, write: 2, admin: 3 }[permission];
    return { admin: rank >= 3, maintain: rank >= 3, push: rank >= 2, triage: rank >= 2, pull: rank >= 1 };
  }

  /** The repository as `GET /repos/{owner}/{repo}` answers it (`permissions`: the caller's). */
  repository(repo: RepoRecord, permission?: Permission): Record<string, unknown> {
    const r = this.repoApi(repo);
    const open = [...repo.issues.values()].filter((i) => i.state === 'open').length;
    return {
      id: repo.id,
      node_id: this.nodeId('Repository', repo.id),
      name: repo.name,
      full_name: repo.fullName,
      private: repo.private,
      owner: this.user(this.store.user(repo.owner, 'Organization')),
      html_url: this.repoHtml(repo),
      description: repo.description,
      fork: false,
      url: r,
      archive_url: `${r}/{archive_format}{/ref}`,
      assignees_url: `${r}/assignees{/user}`,
      blobs_url: `${r}/git/blobs{/sha}`,
      branches_url: `${r}/branches{/branch}`,
      collaborators_url: `${r}/collaborators{/collaborator}`,
      comments_url: `${r}/comments{/number}`,
      commits_url: `${r}/commits{/sha}`,
      compare_url: `${r}/compare/{base}...{head}`,
      contents_url: `${r}/contents/{+path}`,
      contributors_url: `${r}/contributors`,
      deployments_url: `${r}/deployments`,
      downloads_url: `${r}/downloads`,
      events_url: `${r}/events`,
      forks_url: `${r}/forks`,
      git_commits_url: `${r}/git/commits{/sha}`,
      git_refs_url: `${r}/git/refs{/sha}`,
      git_tags_url: `${r}/git/tags{/sha}`,
      git_url: `git://${new URL(this.baseUrl).host}/${repo.fullName}.git`,
      issue_comment_url: `${r}/issues/comments{/number}`,
      issue_events_url: `${r}/issues/events{/number}`,
      issues_url: `${r}/issues{/number}`,
      keys_url: `${r}/keys{/key_id}`,
      labels_url: `${r}/labels{/name}`,
      languages_url: `${r}/languages`,
      merges_url: `${r}/merges`,
      milestones_url: `${r}/milestones{/number}`,
      notifications_url: `${r}/notifications{?since,all,participating}`,
      pulls_url: `${r}/pulls{/number}`,
      releases_url: `${r}/releases{/id}`,
      ssh_url: `git@${new URL(this.baseUrl).hostname}:${repo.fullName}.git`,
      stargazers_url: `${r}/stargazers`,
      statuses_url: `${r}/statuses/{sha}`,
      subscribers_url: `${r}/subscribers`,
      subscription_url: `${r}/subscription`,
      tags_url: `${r}/tags`,
      teams_url: `${r}/teams`,
      trees_url: `${r}/git/trees{/sha}`,
      clone_url: `${this.baseUrl}/${repo.fullName}.git`,
      mirror_url: null,
      hooks_url: `${r}/hooks`,
      svn_url: this.repoHtml(repo),
      homepage: null,
      language: 'TypeScript',
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers_count: 0,
      watchers: 0,
      size: 0,
      default_branch: repo.defaultBranch,
      open_issues: open,
      open_issues_count: open,
      is_template: false,
      topics: [],
      has_issues: true,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      has_downloads: false,
      has_discussions: false,
      archived: false,
      disabled: false,
      visibility: repo.private ? 'private' : 'public',
      pushed_at: repo.pushedAt,
      created_at: repo.createdAt,
      updated_at: repo.updatedAt,
      ...(permission ? { permissions: this.permissions(permission) } : {}),
      allow_rebase_merge: true,
      allow_squash_merge: true,
      allow_merge_commit: true,
      allow_auto_merge: false,
      delete_branch_on_merge: false,
      allow_forking: false,
      web_commit_signoff_required: false,
      license: null,
      network_count: 0,
      subscribers_count: 0,
    };
  }

  gitRef(repo: RepoRecord, ref: { ref: string; sha: string; type: string }) {
    const kind = ref.type === 'tag' ? 'tags' : `${ref.type}s`;
    return {
      ref: ref.ref,
      node_id: this.nodeId('Ref', `${repo.id}:${ref.ref}`),
      url: `${this.repoApi(repo)}/git/${ref.ref}`,
      object: { type: ref.type, sha: ref.sha, url: `${this.repoApi(repo)}/git/${kind}/${ref.sha}` },
    };
  }

  gitCommit(repo: RepoRecord, c: GitCommit) {
    const r = this.repoApi(repo);
    return {
      sha: c.sha,
      node_id: this.nodeId('Commit', c.sha),
      url: `${r}/git/commits/${c.sha}`,
      html_url: `${this.repoHtml(repo)}/commits/${c.sha}`,
      author: c.author,
      committer: c.committer,
      tree: { sha: c.tree, url: `${r}/git/trees/${c.tree}` },
      message: c.message.replace(/\n$/, ''),
      parents: c.parents.map((p) => ({
        sha: p,
        url: `${r}/git/commits/${p}`,
        html_url: `${this.repoHtml(repo)}/commits/${p}`,
      })),
      verification: {
        verified: false,
        reason: 'unsigned',
        signature: null,
        payload: null,
        verified_at: null,
      },
    };
  }

  /** The `commit` object of `GET /commits/{ref}` and compare (author: the GitHub user, if any). */
  commit(repo: RepoRecord, c: GitCommit, files?: GitDiffFile[]) {
    const r = this.repoApi(repo);
    const git = this.gitCommit(repo, c);
    const login = (email: string) =>
      [...this.store.users.values()].find((u) => `${u.login}@sandbox.invalid` === email);
    const author = login(c.author.email);
    const committer = login(c.committer.email);
    return {
      url: `${r}/commits/${c.sha}`,
      sha: c.sha,
      node_id: git.node_id,
      html_url: git.html_url,
      comments_url: `${r}/commits/${c.sha}/comments`,
      commit: {
        url: git.url,
        author: c.author,
        committer: c.committer,
        message: git.message,
        comment_count: 0,
        tree: git.tree,
        verification: git.verification,
      },
      author: author ? this.user(author) : null,
      committer: committer ? this.user(committer) : null,
      parents: git.parents,
      ...(files
        ? {
            stats: {
              additions: sum(files, 'additions'),
              deletions: sum(files, 'deletions'),
              total: sum(files, 'additions') + sum(files, 'deletions'),
            },
            files: files.map((f) => this.diffEntry(repo, c.sha, f)),
          }
        : {}),
    };
  }

  diffEntry(repo: RepoRecord, sha: string, f: GitDiffFile | ComparedFile) {
    const path = encodePath(f.filename);
    return {
      sha: f.sha,
      filename: f.filename,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      blob_url: `${this.repoHtml(repo)}/blob/${sha}/${path}`,
      raw_url: `${this.repoHtml(repo)}/raw/${sha}/${path}`,
      contents_url: `${this.repoApi(repo)}/contents/${path}?ref=${sha}`,
      ...(f.patch !== undefined ? { patch: f.patch } : {}),
    };
  }

  issueHtml(repo: RepoRecord, issue: IssueRecord): string {
    return `${this.repoHtml(repo)}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`;
  }
}

function sum(files: GitDiffFile[], key: 'additions' | 'deletions'): number {
  return files.reduce((n, f) => n + f[key], 0);
}

/** A repository path in a URL: each segment escaped, the slashes kept. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
