import { BranchMovedError } from './errors.ts';
import { githubStatus } from './repository.ts';
import type { FileChange } from './tarball-cache.ts';
import type { Workspace } from './workspace.ts';

/**
 * One file change as one commit on the work branch, through the Git Data API: a blob, a tree
 * on top of the parent's tree (`base_tree`, so every other file stays as it is), a commit, and
 * the ref moved without force (or created, at the first write, from the base branch's head).
 * Nothing touches a working copy, so a Lambda that dies between two calls loses nothing, and
 * a write that fails before the ref moves leaves only unreferenced objects behind.
 */

const MAX_REMEMBERED_TREES = 256;

export interface Commit {
  sha: string;
  parentSha: string;
  /** Whether this write created the work branch. */
  created: boolean;
}

/** `parentSha` is the work branch's head, or the base's head when the branch does not exist yet. */
export async function commitChange(
  workspace: Workspace,
  parent: { sha: string; branchExists: boolean },
  change: FileChange,
  message: string,
): Promise<Commit> {
  const { octokit } = workspace.deps;
  const repo = { owner: workspace.owner, repo: workspace.repo };
  const branch = workspace.workBranch;
  await workspace.assertWritable(branch);

  const trees = workspace.deps.commitTrees;
  // A commit's tree never changes: after the first write, the previous write's answer saves a request.
  const baseTree =
    trees?.get(parent.sha) ??
    (await octokit.rest.git.getCommit({ ...repo, commit_sha: parent.sha })).data.tree.sha;
  let blobSha: string | null = null;
  if (change.content !== undefined) {
    const { data: blob } = await octokit.rest.git.createBlob({
      ...repo,
      content: Buffer.from(change.content).toString('base64'),
      encoding: 'base64',
    });
    blobSha = blob.sha;
  }
  const { data: tree } = await octokit.rest.git.createTree({
    ...repo,
    base_tree: baseTree,
    // `sha: null` removes the path from the tree.
    tree: [{ path: change.path, mode: change.executable ? '100755' : '100644', type: 'blob', sha: blobSha }],
  });
  const { data: commit } = await octokit.rest.git.createCommit({
    ...repo,
    message,
    tree: tree.sha,
    parents: [parent.sha],
  });
  try {
    if (parent.branchExists) {
      // Without force: if the branch moved since `parent.sha` was read, GitHub refuses (422).
      await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha: commit.sha, force: false });
    } else {
      await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: commit.sha });
    }
  } catch (error) {
    if (githubStatus(error) === 422 || githubStatus(error) === 409)
      throw new BranchMovedError(branch, { cause: error });
    throw error;
  }
  if (trees !== undefined) {
    trees.set(commit.sha, tree.sha);
    // Bounded: only the last commits of warm conversations are worth remembering.
    for (const oldest of trees.keys()) {
      if (trees.size <= MAX_REMEMBERED_TREES) break;
      trees.delete(oldest);
    }
  }
  return { sha: commit.sha, parentSha: parent.sha, created: !parent.branchExists };
}
