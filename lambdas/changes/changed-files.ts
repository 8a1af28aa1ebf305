/**
 * What a work branch changed, as the code observes it (GitHub's compare API and the head's
 * tree), never as an agent reports it: every file added, modified, removed, renamed (with its
 * old path) or changed in mode or type, its mode on the branch (a symbolic link is `120000`)
 * and its patch. Paths are normalised (paths.ts); one that cannot be is kept with the reason.
 */

/** GitHub's compare statuses. */
export const CHANGE_STATUSES = [
  'added',
  'removed',
  'modified',
  'renamed',
  'copied',
  'changed',
  'unchanged',
] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];

/** Git's mode of a symbolic link. */
export const SYMLINK_MODE = '120000';

export interface ChangedFile {
  /** The path on the branch (normalised); for a removed file, the path it had. */
  path: string;
  /** A rename's (or copy's) old path, normalised. */
  previousPath?: string;
  status: ChangeStatus;
  /** The file's mode on the branch (`100644`, `100755`, `120000`), when it is there and known. */
  mode?: string;
  /** The file's mode on the base, when it was there and known. */
  previousMode?: string;
  /** The unified diff's hunks, when GitHub gives them (not for binary files or very large diffs). */
  patch?: string;
  additions: number;
  deletions: number;
  /** Why the path (or the old path) could not be normalised; such a file is always protected. */
  unreadable?: string;
}

/** The facts of one comparison: the base commit (the merge base), the head, the files. */
export interface BranchDiff {
  baseSha: string;
  headSha: string;
  files: ChangedFile[];
  /** GitHub lists at most 300 files per comparison: more were changed than listed. */
  incomplete: boolean;
}

const VERBS: Record<ChangeStatus, string> = {
  added: 'added',
  removed: 'deleted',
  modified: 'modified',
  renamed: 'renamed',
  copied: 'copied',
  changed: 'mode or type changed',
  unchanged: 'unchanged',
};

/** One line per file for people: `` `a` -> `b` (renamed) ``, `` `x` (deleted) ``. */
export function describeChange(file: ChangedFile): string {
  const path =
    file.previousPath === undefined ? `\`${file.path}\`` : `\`${file.previousPath}\` → \`${file.path}\``;
  const link = file.mode === SYMLINK_MODE ? ', a symbolic link' : '';
  return `${path} (${VERBS[file.status]}${link})`;
}

/**
 * The file list of a pull request body: from the diff, never from an agent's report; then the
 * tests the branch added, changed or deleted, apart (`testsSection`, test-changes.ts).
 */
export function changedFilesSection(diff: BranchDiff, max = 100, testsSection = ''): string {
  if (diff.files.length === 0) return 'No file differs from the base commit.';
  const lines = diff.files.slice(0, max).map((f) => `- ${describeChange(f)}`);
  if (diff.files.length > max) lines.push(`- … and ${diff.files.length - max} more`);
  if (diff.incomplete)
    lines.push("- … GitHub listed only part of the files: see the pull request's own file list");
  return testsSection === '' ? lines.join('\n') : `${lines.join('\n')}\n\n${testsSection}`;
}
