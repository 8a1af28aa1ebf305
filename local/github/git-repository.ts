import { existsSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GitCommandError } from './errors.ts';
import { type GitIdentity, identityEnv, parseIdentity, runGit } from './git.ts';
import { type ComparedFile, compareDiff } from './git-compare-diff.ts';
import { allObjectNames, ImmutableReads, MutableRead } from './git-memo.ts';

export type GitObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitTreeEntry {
  /** Path relative to the listed tree (with `/` for entries of subtrees in a recursive listing). */
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Blobs only. */
  size?: number;
}

export interface GitCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: GitIdentity;
  committer: GitIdentity;
  message: string;
}

export interface GitRef {
  /** Full name, `refs/heads/main`. */
  ref: string;
  sha: string;
  type: GitObjectType;
}

export interface GitDiffFile {
  filename: string;
  status: 'added' | 'removed' | 'modified';
  /** The blob on the head side (the base side's for a removed file). */
  sha: string;
  additions: number;
  deletions: number;
  /** The unified diff's hunks (from the first `@@`), absent for binary files. */
  patch?: string;
}

const ZERO_SHA = '0'.repeat(40);
const SHA = /^[0-9a-f]{40}$/;

/**
 * Whether a revision or ref name is one the emulator hands to git: plain names only, so no
 * caller can slip an option (`--output=...`) or a revision expression (`main@{1}`, `a..b`) in.
 */
export function isSafeRevision(rev: string): boolean {
  return (
    /^[A-Za-z0-9._/+-]+$/.test(rev) &&
    // No component may start with `-` (an option to git) or `.` (git's own rule for ref names).
    !rev.split('/').some((component) => component.startsWith('-') || component.startsWith('.')) &&
    !rev.startsWith('/') &&
    !rev.endsWith('/') &&
    !rev.endsWith('.') &&
    !rev.endsWith('.lock') &&
    !rev.includes('..') &&
    !rev.includes('//')
  );
}

/**
 * One bare repository on disk, driven with the git CLI. Answers about full object names and the
 * list of refs are kept between reads (local/github/git-memo.ts).
 */
export class GitRepository {
  private readonly objects = new ImmutableReads();
  private readonly refList = new MutableRead<GitRef[]>();

  private constructor(readonly gitDir: string) {}

  static async create(gitDir: string, defaultBranch: string): Promise<GitRepository> {
    await mkdir(gitDir, { recursive: true });
    await runGit(gitDir, ['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, gitDir]);
    return new GitRepository(gitDir);
  }

  /** The bare repository already at `gitDir` (one an earlier emulator wrote). */
  static open(gitDir: string): GitRepository {
    if (!existsSync(join(gitDir, 'HEAD'))) throw new Error(`${gitDir} is not a bare git repository`);
    return new GitRepository(gitDir);
  }

  /** A copy on disk of the bare repository at `from` (no git process: its files are copied). */
  static async copy(from: string, gitDir: string): Promise<GitRepository> {
    await cp(from, gitDir, { recursive: true });
    return new GitRepository(gitDir);
  }

  private git(args: string[], options?: Parameters<typeof runGit>[2]): Promise<Buffer> {
    return runGit(this.gitDir, args, options);
  }

  /** The type of an object, or undefined when the repository has no object by that sha. */
  async objectType(sha: string): Promise<GitObjectType | undefined> {
    if (!SHA.test(sha)) return undefined;
    return this.objects.get(
      `type ${sha}`,
      async () => {
        try {
          return (await this.git(['cat-file', '-t', sha])).toString().trim() as GitObjectType;
        } catch (error) {
          if (error instanceof GitCommandError) return undefined;
          throw error;
        }
      },
      (type) => type !== undefined,
    );
  }

  /** A branch, tag, full ref or commit sha -> the commit's sha, or undefined. */
  async resolveCommit(rev: string): Promise<string | undefined> {
    if (!isSafeRevision(rev)) return undefined;
    const named = await this.namedRef(rev);
    if (named?.type === 'commit') return named.sha;
    const resolve = async () => {
      try {
        return (await this.git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).toString().trim();
      } catch (error) {
        if (error instanceof GitCommandError) return undefined;
        throw error;
      }
    };
    if (!allObjectNames(rev)) return resolve();
    return this.objects.get(`commit of ${rev}`, resolve, (sha) => sha !== undefined);
  }

  /**
   * The ref a revision names, looked up as `git rev-parse` does (gitrevisions(7): `refs/<rev>`,
   * then `refs/tags/<rev>`, `refs/heads/<rev>`, `refs/remotes/<rev>`), in the kept list of refs.
   * Undefined for anything else (a pseudo-ref such as HEAD, an abbreviated object name): git
   * resolves those itself.
   */
  private async namedRef(rev: string): Promise<GitRef | undefined> {
    if (/^[A-Z_]+$/.test(rev) || allObjectNames(rev)) return undefined;
    const refs = await this.refs();
    const names = rev.startsWith('refs/')
      ? [rev]
      : [`refs/${rev}`, `refs/tags/${rev}`, `refs/heads/${rev}`, `refs/remotes/${rev}`];
    for (const name of names) {
      const ref = refs.find((r) => r.ref === name);
      if (ref !== undefined) return ref;
    }
    return undefined;
  }

  refs(): Promise<GitRef[]> {
    return this.refList.get(() => this.readRefs());
  }

  private async readRefs(): Promise<GitRef[]> {
    const out = (
      await this.git(['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)'])
    ).toString();
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [ref = '', sha = '', type = 'commit'] = line.split(' ');
        return { ref, sha, type: type as GitObjectType };
      });
  }

  async ref(fullRef: string): Promise<GitRef | undefined> {
    return (await this.refs()).find((r) => r.ref === fullRef);
  }

  /**
   * Points a ref at an object. With `expected`, git checks the ref's current value in the
   * same step (`null`: the ref must not exist yet), so two writers cannot both win.
   */
  async setRef(fullRef: string, sha: string, expected?: string | null): Promise<void> {
    const args = ['update-ref', fullRef, sha];
    if (expected !== undefined) args.push(expected ?? ZERO_SHA);
    await this.refList.changing(() => this.git(args));
  }

  async deleteRef(fullRef: string): Promise<void> {
    await this.refList.changing(() => this.git(['update-ref', '-d', fullRef]));
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.about(`ancestor ${ancestor} ${descendant}`, [ancestor, descendant], async () => {
      try {
        await this.git(['merge-base', '--is-ancestor', ancestor, descendant]);
        return true;
      } catch (error) {
        if (error instanceof GitCommandError && error.exitCode === 1) return false;
        throw error;
      }
    });
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    return this.about(`merge-base ${a} ${b}`, [a, b], async () => {
      try {
        return (await this.git(['merge-base', a, b])).toString().trim() || undefined;
      } catch (error) {
        if (error instanceof GitCommandError && error.exitCode === 1) return undefined;
        throw error;
      }
    });
  }

  /** What git answers about `revisions`: kept when they are all full object names. */
  private about<T>(key: string, revisions: readonly string[], read: () => Promise<T>): Promise<T> {
    return allObjectNames(...revisions) ? this.objects.get(key, read) : read();
  }

  async writeBlob(content: Buffer): Promise<string> {
    return (await this.git(['hash-object', '-w', '--stdin'], { input: content })).toString().trim();
  }

  async readBlob(sha: string): Promise<Buffer> {
    return this.about(`blob ${sha}`, [sha], () => this.git(['cat-file', 'blob', sha]));
  }

  /** A tree's entries (`recursive`: every subtree's too, trees listed before their contents). */
  async listTree(
    treeish: string,
    options: { recursive?: boolean; path?: string } = {},
  ): Promise<GitTreeEntry[]> {
    const args = ['ls-tree', '-z', '--long', ...(options.recursive ? ['-r', '-t'] : []), treeish];
    if (options.path !== undefined) args.push('--', options.path);
    const out = (await this.about(`tree ${args.join(' ')}`, [treeish], () => this.git(args))).toString(
      'utf8',
    );
    return out
      .split('\0')
      .filter(Boolean)
      .map((record) => {
        const tab = record.indexOf('\t');
        const [mode = '', type = 'blob', sha = '', size = '-'] = record.slice(0, tab).split(/\s+/);
        const entry: GitTreeEntry = {
          path: record.slice(tab + 1),
          mode,
          type: type as GitTreeEntry['type'],
          sha,
        };
        if (size !== '-') entry.size = Number(size);
        return entry;
      });
  }

  /** Writes one tree level (names without `/`) and returns its sha. */
  async writeTree(
    entries: readonly { name: string; mode: string; type: string; sha: string }[],
  ): Promise<string> {
    const input = entries.map((e) => `${e.mode} ${e.type} ${e.sha}\t${e.name}\0`).join('');
    return (await this.git(['mktree', '-z', '--missing'], { input })).toString().trim();
  }

  async readCommit(sha: string): Promise<GitCommit> {
    const raw = (
      await this.about(`commit ${sha}`, [sha], () => this.git(['cat-file', 'commit', sha]))
    ).toString('utf8');
    const split = raw.indexOf('\n\n');
    const headers = (split === -1 ? raw : raw.slice(0, split)).split('\n');
    const commit: GitCommit = {
      sha,
      tree: '',
      parents: [],
      author: parseIdentity(''),
      committer: parseIdentity(''),
      message: split === -1 ? '' : raw.slice(split + 2),
    };
    for (const line of headers) {
      const space = line.indexOf(' ');
      const key = line.slice(0, space);
      const value = line.slice(space + 1);
      if (key === 'tree') commit.tree = value;
      else if (key === 'parent') commit.parents.push(value);
      else if (key === 'author') commit.author = parseIdentity(value);
      else if (key === 'committer') commit.committer = parseIdentity(value);
    }
    return commit;
  }

  async writeCommit(input: {
    tree: string;
    parents: readonly string[];
    message: string;
    author: GitIdentity;
    committer: GitIdentity;
  }): Promise<string> {
    const args = ['commit-tree', input.tree, ...input.parents.flatMap((p) => ['-p', p]), '-F', '-'];
    const out = await this.git(args, {
      input: input.message,
      env: identityEnv(input.author, input.committer),
    });
    return out.toString().trim();
  }

  /** Commits reachable from `head` but not from `base`, oldest first. */
  async commitsBetween(base: string, head: string): Promise<string[]> {
    const out = (
      await this.about(`between ${base} ${head}`, [base, head], () =>
        this.git(['rev-list', '--reverse', `${base}..${head}`]),
      )
    ).toString();
    return out.split('\n').filter(Boolean);
  }

  /** The newest `limit` commits reachable from `sha`, newest first. */
  async history(sha: string, limit: number): Promise<string[]> {
    const out = (
      await this.about(`history ${sha} ${limit}`, [sha], () =>
        this.git(['rev-list', `--max-count=${limit}`, sha]),
      )
    ).toString();
    return out.split('\n').filter(Boolean);
  }

  /** The files that differ between two commits, with their hunks (renames shown as remove + add). */
  async diff(base: string, head: string): Promise<GitDiffFile[]> {
    return this.about(`diff ${base} ${head}`, [base, head], () => this.readDiff(base, head));
  }

  private async readDiff(base: string, head: string): Promise<GitDiffFile[]> {
    const range = ['-r', '-z', '--no-renames', base, head];
    const raw = (await this.git(['diff-tree', ...range])).toString('utf8').split('\0');
    const numstat = (await this.git(['diff-tree', '--numstat', ...range])).toString('utf8').split('\0');
    const patches = splitPatches(
      (await this.git(['diff-tree', '-p', '-r', '--no-renames', base, head])).toString('utf8'),
    );
    const files: GitDiffFile[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const [, , oldSha = '', newSha = '', letter = 'M'] = (raw[i] ?? '').split(' ');
      const filename = raw[i + 1] ?? '';
      const [added = '0', deleted = '0'] = (numstat[files.length] ?? '').split('\t');
      const patch = patches[files.length];
      files.push({
        filename,
        status: letter === 'A' ? 'added' : letter === 'D' ? 'removed' : 'modified',
        sha: letter === 'D' ? oldSha : newSha,
        additions: added === '-' ? 0 : Number(added),
        deletions: deleted === '-' ? 0 : Number(deleted),
        ...(patch !== undefined ? { patch } : {}),
      });
    }
    return files;
  }

  /** The files between two commits as GitHub's compare lists them: renames, mode and type changes. */
  compare(base: string, head: string): Promise<ComparedFile[]> {
    return this.about(`compare ${base} ${head}`, [base, head], () =>
      compareDiff((args) => this.git(args), base, head),
    );
  }

  /** A gzipped tar of a commit's tree, every path under `prefix`. */
  async archive(sha: string, prefix: string): Promise<Buffer> {
    return this.git(['archive', '--format=tar.gz', `--prefix=${prefix}`, sha]);
  }
}

/** `diff-tree -p` output -> each file's hunks, in the order git lists the files (undefined: binary). */
function splitPatches(text: string): (string | undefined)[] {
  const chunks = text.split(/^diff --git /m).slice(1);
  return chunks.map((chunk) => {
    const start = chunk.search(/^@@/m);
    if (start === -1) return undefined;
    return chunk.slice(start).replace(/\n$/, '');
  });
}
