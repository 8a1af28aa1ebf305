import type { GitDiffFile } from './git-repository.ts';

/**
 * The files of a comparison as GitHub's compare API lists them: renames detected (git's
 * default 50% similarity), each with `previous_filename`; a change of mode or of type (a file
 * made executable, a file replaced by a symbolic link) as `changed`; added, removed and
 * modified as usual. Each file's patch is read on its own, so a type change (which git prints
 * as two patches of one path) cannot shift the patches of the files after it.
 */

export interface ComparedFile extends Omit<GitDiffFile, 'status'> {
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'changed';
  previous_filename?: string;
}

type RunGit = (args: string[]) => Promise<Buffer>;

interface RawEntry {
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  letter: string;
  path: string;
  previous?: string;
}

/** `diff-tree -r -z -M` raw records: `:modes shas status\0path\0` (two paths for R and C). */
function parseRaw(text: string): RawEntry[] {
  const fields = text.split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i < fields.length; ) {
    const head = fields[i] ?? '';
    if (!head.startsWith(':')) {
      i += 1;
      continue;
    }
    const [oldMode = '', newMode = '', oldSha = '', newSha = '', status = 'M'] = head.slice(1).split(' ');
    const letter = status.charAt(0);
    if (letter === 'R' || letter === 'C') {
      entries.push({
        oldMode,
        newMode,
        oldSha,
        newSha,
        letter,
        previous: fields[i + 1] ?? '',
        path: fields[i + 2] ?? '',
      });
      i += 3;
    } else {
      entries.push({ oldMode, newMode, oldSha, newSha, letter, path: fields[i + 1] ?? '' });
      i += 2;
    }
  }
  return entries;
}

function statusOf(entry: RawEntry): ComparedFile['status'] {
  switch (entry.letter) {
    case 'A':
    case 'C':
      return 'added';
    case 'D':
      return 'removed';
    case 'R':
      return 'renamed';
    case 'T':
      return 'changed';
    default:
      return entry.oldMode !== entry.newMode && entry.oldSha === entry.newSha ? 'changed' : 'modified';
  }
}

/** The hunks of `diff-tree -p` output (from each file's first `@@`), joined; undefined when none (binary, mode only). */
function hunksOf(text: string): string | undefined {
  const hunks = text
    .split(/^diff --git /m)
    .slice(1)
    .map((chunk) => {
      const start = chunk.search(/^@@/m);
      return start === -1 ? undefined : chunk.slice(start).replace(/\n$/, '');
    })
    .filter((h): h is string => h !== undefined);
  return hunks.length === 0 ? undefined : hunks.join('\n');
}

export async function compareDiff(git: RunGit, base: string, head: string): Promise<ComparedFile[]> {
  const entries = parseRaw((await git(['diff-tree', '-r', '-z', '-M', base, head])).toString('utf8'));
  const files: ComparedFile[] = [];
  for (const entry of entries) {
    const paths = entry.previous === undefined ? [entry.path] : [entry.previous, entry.path];
    const numstat = (await git(['diff-tree', '-r', '-M', '--numstat', base, head, '--', ...paths]))
      .toString('utf8')
      .split('\n')[0];
    const [added = '0', deleted = '0'] = (numstat ?? '').split('\t');
    const patch = hunksOf(
      (await git(['diff-tree', '-p', '-r', '-M', base, head, '--', ...paths])).toString('utf8'),
    );
    const status = statusOf(entry);
    files.push({
      filename: entry.path,
      status,
      sha: status === 'removed' ? entry.oldSha : entry.newSha,
      additions: added === '-' ? 0 : Number(added) || 0,
      deletions: deleted === '-' ? 0 : Number(deleted) || 0,
      ...(patch === undefined ? {} : { patch }),
      ...(entry.previous === undefined ? {} : { previous_filename: entry.previous }),
    });
  }
  return files;
}
