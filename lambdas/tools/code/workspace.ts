import type { Octokit } from '@octokit/rest';
import type { WorkBranchRecords } from './branch-ownership.ts';
import type { CodeToolsConfig } from './config.ts';
import { BaseBranchMissingError, BranchRefusedError } from './errors.ts';
import { githubStatus, type RepositoryRef } from './repository.ts';
import type { TarballCache } from './tarball-cache.ts';

/**
 * A conversation's workspace: the configured repository, its base branch, and the
 * conversation's own work branch. The work branch is the one the state machine named in the
 * tool context (`ToolInvocation.context.workBranch`, e.g. the bug workflow's
 * `agents/bug-<short id>`), checked here against the branches the conversation owns
 * (branch-ownership.ts); without one it is derived from the conversation id
 * (`<prefix><conversation id>`). No tool argument names a branch, so the model cannot aim a
 * write anywhere else, and an invocation naming another conversation's branch is refused.
 */

export interface CodeToolDeps {
  octokit: Octokit;
  repository: RepositoryRef;
  config: CodeToolsConfig;
  cache: TarballCache;
  /** Remembers the repository's default branch across warm invocations (it rarely changes). */
  defaultBranchMemo?: { value?: string };
  /** Tree sha of each commit the tools made (commit sha -> tree sha), kept across warm invocations. */
  commitTrees?: Map<string, string>;
  /**
   * The work branches workflows recorded for their conversations; a branch the tool context
   * names must be the conversation's derived or recorded one. @default - only the derived one
   */
  workBranches?: WorkBranchRecords;
}

/** Conversation ids are execution names (letters, digits, `-`, `_`), which are valid in a ref. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,80}$/;

export function workBranchFor(prefix: string, conversationId: string): string {
  if (!SAFE_ID.test(conversationId)) {
    throw new BranchRefusedError(
      `${prefix}${conversationId}`,
      'the conversation id is not a safe branch name',
    );
  }
  return `${prefix}${conversationId}`;
}

/**
 * A branch name a state machine may give: the configured prefix, then path segments of
 * letters, digits, `.`, `_` and `-` (no `..`, no segment starting with `.` or ending with
 * `.lock`: what git refuses in a ref).
 */
const SAFE_BRANCH_REST = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** The work branch the tool context names, checked against the prefix and git's ref rules. */
export function givenWorkBranch(prefix: string, branch: string): string {
  if (!branch.startsWith(prefix)) {
    throw new BranchRefusedError(branch, `work branches given by the workflow must start with ${prefix}`);
  }
  const rest = branch.slice(prefix.length);
  if (
    branch.length > 200 ||
    !SAFE_BRANCH_REST.test(rest) ||
    rest.includes('..') ||
    /\.lock(\/|$)/.test(rest)
  ) {
    throw new BranchRefusedError(branch, 'it is not a safe branch name');
  }
  return branch;
}

export interface ReadRef {
  /** The branch read: the work branch once it exists, the base branch before. */
  branch: string;
  sha: string;
}

export class Workspace {
  readonly workBranch: string;

  /** `workBranch`: the tool context's (checked); without it, the conversation's derived one. */
  constructor(
    readonly deps: CodeToolDeps,
    readonly conversationId: string,
    workBranch?: string,
  ) {
    this.workBranch =
      workBranch === undefined
        ? workBranchFor(deps.config.branchPrefix, conversationId)
        : givenWorkBranch(deps.config.branchPrefix, workBranch);
  }

  /**
   * Refuses a work branch that is the repository's default or base branch (a prefix such as
   * `release/` could make them meet), before any read or write uses it.
   */
  async assertNotProtected(): Promise<void> {
    const [defaultBranch, baseBranch] = [await this.defaultBranch(), await this.baseBranch()];
    if (this.workBranch === defaultBranch || this.workBranch === baseBranch) {
      throw new BranchRefusedError(this.workBranch, "it is the repository's default or base branch");
    }
  }

  get owner(): string {
    return this.deps.repository.owner;
  }

  get repo(): string {
    return this.deps.repository.repo;
  }

  async defaultBranch(): Promise<string> {
    const memo = this.deps.defaultBranchMemo;
    if (memo?.value !== undefined) return memo.value;
    const { data } = await this.deps.octokit.rest.repos.get({ owner: this.owner, repo: this.repo });
    if (memo !== undefined) memo.value = data.default_branch;
    return data.default_branch;
  }

  async baseBranch(): Promise<string> {
    return this.deps.config.baseBranch ?? this.defaultBranch();
  }

  /** The head commit of `branch`, or undefined when the branch does not exist. */
  async headOf(branch: string): Promise<string | undefined> {
    try {
      const { data } = await this.deps.octokit.rest.git.getRef({
        owner: this.owner,
        repo: this.repo,
        ref: `heads/${branch}`,
      });
      return data.object.sha;
    } catch (error) {
      if (githubStatus(error) === 404) return undefined;
      throw error;
    }
  }

  /** What reads see: the work branch (with the conversation's own writes) once it exists, else the base. */
  async readRef(): Promise<ReadRef> {
    const work = await this.headOf(this.workBranch);
    if (work !== undefined) return { branch: this.workBranch, sha: work };
    const base = await this.baseBranch();
    const sha = await this.headOf(base);
    if (sha === undefined) throw new BaseBranchMissingError(`${this.owner}/${this.repo}`, base);
    return { branch: base, sha };
  }

  /**
   * The last check before a ref is created or moved: the branch must be this conversation's
   * own work branch, carry the prefix, and be neither the default nor the base branch. The
   * branch is derived, never given, so this holds by construction; the check keeps it so if a
   * configuration (a prefix, a base branch named like a work branch) ever makes them meet.
   */
  async assertWritable(branch: string): Promise<void> {
    if (branch !== this.workBranch) {
      throw new BranchRefusedError(
        branch,
        `this conversation writes only to its own work branch ${this.workBranch}`,
      );
    }
    if (!branch.startsWith(this.deps.config.branchPrefix)) {
      throw new BranchRefusedError(branch, `work branches start with ${this.deps.config.branchPrefix}`);
    }
    await this.assertNotProtected();
  }
}
