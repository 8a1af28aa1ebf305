import { unprocessable } from './errors.ts';
import type { GitRepository } from './git-repository.ts';

/** One entry of `POST /git/trees`: a path set to an object, or removed (`sha: null`). */
export interface TreeChange {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string | null;
}

interface Entry {
  mode: string;
  type: string;
  sha: string;
}

/** One directory being rebuilt: entries kept as they are, and subdirectories being changed. */
interface Dir {
  entries: Map<string, Entry>;
  dirs: Map<string, Dir>;
}

/**
 * Builds a tree from a base tree and changes at any depth, as GitHub's `POST /git/trees` with
 * `base_tree` does: only the directories on a changed path are rewritten (`mktree`), the rest
 * is shared with the base. Directories left empty disappear, as git cannot store them.
 */
export async function buildTree(
  git: GitRepository,
  baseTree: string | undefined,
  changes: readonly TreeChange[],
): Promise<string> {
  const root = await load(git, baseTree);
  for (const change of changes) {
    const parts = change.path.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..' || p === '.git')) {
      throw unprocessable('tree.path contains a malformed path component', [
        { resource: 'Tree', field: 'path', code: 'invalid' },
      ]);
    }
    const name = parts.pop() as string;
    let dir = root;
    for (const part of parts) {
      let child = dir.dirs.get(part);
      if (!child) {
        const existing = dir.entries.get(part);
        child = await load(git, existing?.type === 'tree' ? existing.sha : undefined);
        dir.entries.delete(part);
        dir.dirs.set(part, child);
      }
      dir = child;
    }
    dir.dirs.delete(name);
    if (change.sha === null) dir.entries.delete(name);
    else dir.entries.set(name, { mode: change.mode, type: change.type, sha: change.sha });
  }
  return (await write(git, root)) ?? (await git.writeTree([]));
}

async function load(git: GitRepository, tree: string | undefined): Promise<Dir> {
  const entries = new Map<string, Entry>();
  if (tree) {
    for (const e of await git.listTree(tree)) entries.set(e.path, { mode: e.mode, type: e.type, sha: e.sha });
  }
  return { entries, dirs: new Map() };
}

/** Writes a directory bottom-up; undefined when it ends up empty. */
async function write(git: GitRepository, dir: Dir): Promise<string | undefined> {
  const entries = [...dir.entries].map(([name, e]) => ({ name, ...e }));
  for (const [name, child] of dir.dirs) {
    const sha = await write(git, child);
    if (sha) entries.push({ name, mode: '040000', type: 'tree', sha });
  }
  if (entries.length === 0) return undefined;
  return git.writeTree(entries);
}
