import { randomUUID } from 'node:crypto';
import { join, relative } from 'node:path';
import type { GitIdentity } from './git.ts';
import { GitRepository } from './git-repository.ts';
import { SAVED_GITHUB_VERSION, type SavedGitHub } from './saved-store.ts';
import { buildTree, type TreeChange } from './tree-builder.ts';

/** What a collaborator may do in a repository, as `GET .../collaborators/{u}/permission` says it. */
export type Permission = 'admin' | 'write' | 'read' | 'none';

export interface GitHubUser {
  login: string;
  id: number;
  type: 'User' | 'Bot' | 'Organization';
}

export interface LabelRecord {
  id: number;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}

export interface PullRecord {
  head: string;
  base: string;
  /** The head branch's commit when last seen (kept if the branch is deleted). */
  headSha: string;
  baseSha: string;
  draft: boolean;
  maintainerCanModify: boolean;
}

/** An issue or a pull request: they share one number sequence per repository, as on GitHub. */
export interface IssueRecord {
  number: number;
  id: number;
  /** The pull request's own id (GitHub gives the issue and the pull different ids). */
  pullId?: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'not_planned' | 'reopened' | null;
  user: string;
  labels: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  comments: number;
  pull?: PullRecord;
}

export interface ReviewRecord {
  id: number;
  pullNumber: number;
  user: string;
  body: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'PENDING';
  commitId: string;
  /** Undefined while pending. */
  submittedAt: string | undefined;
}

export interface CommentRecord {
  id: number;
  issueNumber: number;
  user: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface RepoRecord {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  private: boolean;
  description: string | null;
  defaultBranch: string;
  createdAt: string;
  updatedAt: string;
  pushedAt: string;
  git: GitRepository;
  nextNumber: number;
  issues: Map<number, IssueRecord>;
  comments: Map<number, CommentRecord>;
  reviews: Map<number, ReviewRecord>;
  /** By lower-cased name (GitHub's label names are case-insensitive). */
  labels: Map<string, LabelRecord>;
  collaborators: Map<string, Permission>;
}

export interface CreateRepositoryInput {
  owner: string;
  name: string;
  private?: boolean;
  description?: string;
  defaultBranch?: string;
  /** Files of the initial commit, by path. */
  files?: Record<string, string | Buffer>;
  /** A bare repository on disk to copy instead of committing `files` (one an identical seed made). */
  copyOf?: string;
  message?: string;
  author?: GitIdentity;
  collaborators?: Record<string, Permission>;
}

/** GitHub's default labels, which every new repository gets. */
const DEFAULT_LABELS: [string, string, string][] = [
  ['bug', 'd73a4a', "Something isn't working"],
  ['documentation', '0075ca', 'Improvements or additions to documentation'],
  ['enhancement', 'a2eeef', 'New feature or request'],
  ['question', 'd876e3', 'Further information is requested'],
];

/**
 * The emulator's state: git repositories on disk (objects and refs), and in memory what GitHub
 * keeps beside git (issues, pull requests, comments, labels, users, ids), like the rest of the
 * sandbox, which lives as long as its process; a sandbox that keeps its state saves these
 * records when it stops and takes them back when it starts (`saved`, `takeBack`).
 */
export class GitHubStore {
  readonly users = new Map<string, GitHubUser>();
  readonly repos = new Map<string, RepoRecord>();
  private lastId = 1000;

  constructor(
    private readonly root: string,
    readonly now: () => Date = () => new Date(),
  ) {}

  nextId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  /** The user by login, made up on first sight (the sandbox has no sign-up). */
  user(login: string, type: GitHubUser['type'] = 'User'): GitHubUser {
    let user = this.users.get(login.toLowerCase());
    if (!user) {
      user = { login, id: this.nextId(), type };
      this.users.set(login.toLowerCase(), user);
    }
    return user;
  }

  repository(owner: string, name: string): RepoRecord | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  async createRepository(input: CreateRepositoryInput): Promise<RepoRecord> {
    const fullName = `${input.owner}/${input.name}`;
    if (this.repository(input.owner, input.name)) throw new Error(`repository ${fullName} exists`);
    const defaultBranch = input.defaultBranch ?? 'main';
    const gitDir = join(this.root, `${randomUUID()}.git`);
    const git = input.copyOf
      ? await GitRepository.copy(input.copyOf, gitDir)
      : await GitRepository.create(gitDir, defaultBranch);
    this.user(input.owner, 'Organization');
    const now = this.timestamp();
    const repo: RepoRecord = {
      id: this.nextId(),
      owner: input.owner,
      name: input.name,
      fullName,
      private: input.private ?? true,
      description: input.description ?? null,
      defaultBranch,
      createdAt: now,
      updatedAt: now,
      pushedAt: now,
      git,
      nextNumber: 1,
      issues: new Map(),
      comments: new Map(),
      reviews: new Map(),
      labels: new Map(
        DEFAULT_LABELS.map(([name, color, description]) => [
          name,
          { id: this.nextId(), name, color, description, default: true },
        ]),
      ),
      collaborators: new Map(Object.entries(input.collaborators ?? {}).map(([u, p]) => [u.toLowerCase(), p])),
    };
    this.repos.set(fullName.toLowerCase(), repo);
    if (input.files && !input.copyOf) {
      const author = input.author ?? {
        name: input.owner,
        email: `${input.owner}@sandbox.invalid`,
        date: now,
      };
      await this.commitFiles(repo, defaultBranch, input.files, input.message ?? 'Initial commit', author);
    }
    return repo;
  }

  /** Commits files onto a branch (created if missing), as a push would. */
  async commitFiles(
    repo: RepoRecord,
    branch: string,
    files: Record<string, string | Buffer>,
    message: string,
    author: GitIdentity,
  ): Promise<string> {
    const parent = await repo.git.resolveCommit(`refs/heads/${branch}`);
    const baseTree = parent ? (await repo.git.readCommit(parent)).tree : undefined;
    const changes: TreeChange[] = [];
    for (const [path, content] of Object.entries(files)) {
      const sha = await repo.git.writeBlob(Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'));
      changes.push({ path, mode: '100644', type: 'blob', sha });
    }
    const tree = await buildTree(repo.git, baseTree, changes);
    const commit = await repo.git.writeCommit({
      tree,
      parents: parent ? [parent] : [],
      message,
      author,
      committer: author,
    });
    await repo.git.setRef(`refs/heads/${branch}`, commit, parent ?? null);
    repo.pushedAt = this.timestamp();
    return commit;
  }

  /** The records beside git, as a sandbox that keeps its state saves them (local/github/saved-store.ts). */
  saved(): SavedGitHub {
    return structuredClone({
      version: SAVED_GITHUB_VERSION,
      lastId: this.lastId,
      users: [...this.users.values()],
      repos: [...this.repos.values()].map(
        ({ git, issues, comments, reviews, labels, collaborators, ...repo }) => ({
          ...repo,
          gitDir: relative(this.root, git.gitDir),
          issues: [...issues.values()],
          comments: [...comments.values()],
          reviews: [...reviews.values()],
          labels: [...labels.values()],
          collaborators: [...collaborators],
        }),
      ),
    });
  }

  /**
   * Takes saved records back into a store that holds no repository yet, each repository on the
   * bare repository its record names under this store's root (where the saving store kept it).
   */
  takeBack(saved: SavedGitHub): void {
    if (this.repos.size > 0) throw new Error('GitHub records are taken back into an empty store only');
    const { repos, users, lastId } = structuredClone(saved);
    this.lastId = Math.max(this.lastId, lastId);
    for (const user of users) this.users.set(user.login.toLowerCase(), user);
    for (const { gitDir, issues, comments, reviews, labels, collaborators, ...repo } of repos) {
      this.repos.set(repo.fullName.toLowerCase(), {
        ...repo,
        git: GitRepository.open(join(this.root, gitDir)),
        issues: new Map(issues.map((issue) => [issue.number, issue])),
        comments: new Map(comments.map((comment) => [comment.id, comment])),
        // JSON leaves out a pending review's undefined `submittedAt`.
        reviews: new Map(
          reviews.map((review) => [review.id, { ...review, submittedAt: review.submittedAt }]),
        ),
        labels: new Map(labels.map((label) => [label.name.toLowerCase(), label])),
        collaborators: new Map(collaborators),
      });
    }
  }

  /** A collaborator's permission; anyone else may read a public repository and nothing else. */
  permission(repo: RepoRecord, login: string): Permission {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return 'admin';
    return repo.collaborators.get(login.toLowerCase()) ?? (repo.private ? 'none' : 'read');
  }
}
