import type { Octokit } from '@octokit/rest';
import { type BranchDiff, CHANGE_STATUSES, type ChangedFile, type ChangeStatus } from './changed-files.ts';
import { normaliseGuardPath } from './paths.ts';

/**
 * Reads what a work branch changed against its base through GitHub itself: the compare API
 * (`base...head`: the files since the merge base, renames with their old path, mode and type
 * changes as `changed`), and each changed file's mode on both sides from the two commits'
 * trees (the compare API has no modes; a symbolic link is `120000`).
 */

/** GitHub's compare API lists at most this many files. */
export const COMPARE_FILE_LIMIT = 300;

type Repository = { owner: string; repo: string };

/** Every path's mode in a commit's tree, or undefined when GitHub truncated the listing. */
async function modesOf(octokit: Octokit, repository: Repository, commitSha: string) {
  const { data: commit } = await octokit.rest.git.getCommit({ ...repository, commit_sha: commitSha });
  const { data: tree } = await octokit.rest.git.getTree({
    ...repository,
    tree_sha: commit.tree.sha,
    recursive: 'true',
  });
  if (tree.truncated) return undefined;
  const modes = new Map<string, string>();
  for (const entry of tree.tree)
    if (entry.path !== undefined && entry.mode !== undefined) modes.set(entry.path, entry.mode);
  return modes;
}

/** One file's mode through the contents API (when the tree was too large to list). */
async function modeOfFile(octokit: Octokit, repository: Repository, path: string, ref: string) {
  try {
    const { data } = await octokit.rest.repos.getContent({ ...repository, path, ref });
    if (Array.isArray(data)) return '040000';
    return data.type === 'symlink' ? '120000' : data.type === 'submodule' ? '160000' : '100644';
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return undefined;
    throw error;
  }
}

const statusOf = (status: string): ChangeStatus =>
  (CHANGE_STATUSES as readonly string[]).includes(status) ? (status as ChangeStatus) : 'changed';

export async function readBranchDiff(
  octokit: Octokit,
  repository: Repository,
  base: string,
  head: string,
): Promise<BranchDiff> {
  const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
    ...repository,
    basehead: `${base}...${head}`,
  });
  const baseSha = data.merge_base_commit.sha;
  const headSha = data.commits.at(-1)?.sha ?? baseSha;
  const listed = data.files ?? [];
  const [headModes, baseModes] = await Promise.all([
    modesOf(octokit, repository, headSha),
    modesOf(octokit, repository, baseSha),
  ]);
  const files: ChangedFile[] = [];
  for (const entry of listed) {
    const status = statusOf(entry.status);
    const path = normaliseGuardPath(entry.filename);
    const previous =
      entry.previous_filename === undefined ? undefined : normaliseGuardPath(entry.previous_filename);
    const oldPath = entry.previous_filename ?? entry.filename;
    const mode =
      status === 'removed'
        ? undefined
        : headModes !== undefined
          ? headModes.get(entry.filename)
          : await modeOfFile(octokit, repository, entry.filename, headSha);
    const previousMode =
      status === 'added'
        ? undefined
        : baseModes !== undefined
          ? baseModes.get(oldPath)
          : await modeOfFile(octokit, repository, oldPath, baseSha);
    const unreadable = [path, previous].flatMap((p) => (p !== undefined && !p.ok ? [p.reason] : []));
    files.push({
      path: path.ok ? path.path : entry.filename,
      ...(previous === undefined
        ? {}
        : { previousPath: previous.ok ? previous.path : (entry.previous_filename ?? '') }),
      status,
      ...(mode === undefined ? {} : { mode }),
      ...(previousMode === undefined ? {} : { previousMode }),
      ...(entry.patch === undefined ? {} : { patch: entry.patch }),
      additions: entry.additions,
      deletions: entry.deletions,
      ...(unreadable.length === 0 ? {} : { unreadable: unreadable.join('; ') }),
    });
  }
  // GitHub lists at most 300 files and 250 commits: past either, the facts are partial.
  const incomplete = listed.length >= COMPARE_FILE_LIMIT || data.total_commits > data.commits.length;
  return { baseSha, headSha, files, incomplete };
}
