import { compileGlob, type Glob } from '../tools/code/glob.ts';

/**
 * Repository paths as a guard compares them. A path from a diff or from configuration is
 * normalised first, so spellings of one file cannot slip past a pattern: `./` and empty
 * segments are dropped, backslashes read as slashes, Unicode is composed (NFC: `é` typed as
 * `e` + U+0301 is the same file as `é`), and the comparison itself ignores case (a checkout
 * on macOS or Windows treats `.GitHub/` as `.github/`, and CI services do too). A `..`
 * segment, an absolute path, a NUL byte or a control character is refused outright: a guard
 * treats such a path as protected rather than guess what it names.
 */

export type NormalisedPath = { ok: true; path: string } | { ok: false; reason: string };

/** Longest path accepted, in characters. */
export const MAX_GUARD_PATH_CHARS = 4_096;

export function normaliseGuardPath(input: string): NormalisedPath {
  if (input.length > MAX_GUARD_PATH_CHARS) return { ok: false, reason: 'the path is too long' };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(input))
    return { ok: false, reason: 'the path contains a control character' };
  const composed = input.normalize('NFC').replaceAll('\\', '/');
  if (composed.startsWith('/') || /^[A-Za-z]:/.test(composed))
    return { ok: false, reason: 'the path is absolute' };
  const segments: string[] = [];
  for (const segment of composed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { ok: false, reason: 'the path has a ".." segment' };
    segments.push(segment);
  }
  if (segments.length === 0) return { ok: false, reason: 'the path names the repository root' };
  return { ok: true, path: segments.join('/') };
}

/** The key two paths are compared by: normalised, then lower-cased. */
export function pathKey(path: string): string {
  return path.toLowerCase();
}

/**
 * A protected-path pattern. Glob syntax (`*`, `**`, `?`, `[...]`, `{a,b}`); a pattern without
 * `/` matches a file name at any depth (`package.json` matches `packages/api/package.json`),
 * one with a `/` is anchored at the root, and one ending in `/` means everything under that
 * directory. Matching ignores case.
 */
export interface PathPattern {
  readonly source: string;
  matches(normalisedPath: string): boolean;
}

export function compilePattern(source: string): PathPattern {
  const trimmed = source.trim().normalize('NFC').replace(/^\.\//, '');
  const widened = trimmed.endsWith('/') ? `${trimmed}**` : trimmed;
  const glob: Glob = compileGlob(widened.toLowerCase());
  return { source, matches: (path) => glob.matches(pathKey(path)) };
}

/**
 * A path prefix (the issue pipeline's `sensitivePaths`, e.g. `src/payments`) as patterns:
 * every path that starts with it (`src/payments.ts`, `src/payments/stripe.ts`), as the prefix
 * was always read, now without regard to case.
 */
export function prefixPatterns(prefix: string): string[] {
  const clean = prefix
    .trim()
    .replace(/^\.?\/+/, '')
    .replace(/\/+$/, '');
  if (clean === '') return [];
  const anchored = clean.includes('/') ? clean : `/${clean}`;
  return [`${anchored}*`, `${anchored}*/**`];
}
