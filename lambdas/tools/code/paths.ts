import { PathRefusedError } from './errors.ts';

/**
 * Repository paths as the model writes them, made safe: every path a code tool touches goes
 * through `normalizeRepoPath` first, so `../`, absolute paths, NUL bytes and `.git/` never reach
 * the file system or the Git Data API. Paths are POSIX, relative to the repository root, with
 * no `.` or empty segments; `''` is the root itself.
 */

/** Longest path accepted, in characters (git itself has no limit; file systems stop at 4096). */
export const MAX_PATH_CHARS = 1024;

/** Symbolic links followed in one resolution before it is refused as a loop. */
export const MAX_SYMLINK_HOPS = 40;

export function normalizeRepoPath(input: string, options: { allowRoot?: boolean } = {}): string {
  if (input.length > MAX_PATH_CHARS)
    throw new PathRefusedError(input.slice(0, 80), `longer than ${MAX_PATH_CHARS} characters`);
  if (input.includes('\0')) throw new PathRefusedError(input, 'it contains a NUL byte');
  if (input.includes('\\')) throw new PathRefusedError(input, 'use forward slashes (/) between directories');
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input) || input.startsWith('~')) {
    throw new PathRefusedError(
      input,
      'absolute paths are not allowed: give a path relative to the repository root',
    );
  }
  const segments: string[] = [];
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) throw new PathRefusedError(input, 'it leads outside the repository (../)');
      segments.pop();
      continue;
    }
    // Case-insensitive: on macOS and Windows checkouts `.GIT` is the same directory.
    if (segment.toLowerCase() === '.git')
      throw new PathRefusedError(input, 'the .git directory is not part of the repository');
    segments.push(segment);
  }
  const path = segments.join('/');
  if (path === '' && options.allowRoot !== true)
    throw new PathRefusedError(input, 'it names the repository root, not a file');
  return path;
}

/** The parent directory of a normalised path (`''` for a top-level entry). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/**
 * Resolves symbolic links in a normalised path against the repository's own links (from the
 * tarball's entries, never the disk: the cache writes no link to disk). A link whose target
 * leaves the repository refuses the whole path; a link inside is followed, at most
 * `MAX_SYMLINK_HOPS` times. `linkTarget` answers the target of a path that is a link.
 */
export function resolveLinks(path: string, linkTarget: (path: string) => string | undefined): string {
  let pending = path === '' ? [] : path.split('/');
  let resolved: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const [segment, ...rest] = pending as [string, ...string[]];
    const candidate = [...resolved, segment].join('/');
    const target = linkTarget(candidate);
    if (target === undefined) {
      resolved.push(segment);
      pending = rest;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS)
      throw new PathRefusedError(path, `more than ${MAX_SYMLINK_HOPS} symbolic links (a loop?)`);
    if (target.startsWith('/')) {
      throw new PathRefusedError(
        path,
        `${candidate} is a symbolic link to ${target}, outside the repository`,
      );
    }
    // A relative target is read from the link's directory; it must not climb above the root.
    const joined = [...resolved, ...target.split('/')];
    const next: string[] = [];
    for (const part of joined) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (next.length === 0) {
          throw new PathRefusedError(
            path,
            `${candidate} is a symbolic link to ${target}, outside the repository`,
          );
        }
        next.pop();
        continue;
      }
      if (part.toLowerCase() === '.git') {
        throw new PathRefusedError(path, `${candidate} is a symbolic link into the .git directory`);
      }
      next.push(part);
    }
    resolved = [];
    pending = [...next, ...rest];
  }
  return resolved.join('/');
}
