import { InvalidGlobError } from './errors.ts';

/**
 * Glob patterns for `list_files` and `search_code`, matched without regular expressions so a
 * pattern from the model costs at most (pattern length x path length) steps:
 *
 * - `*` any characters within one path segment, `?` one character (never `/`);
 * - `**` as a whole segment: any number of segments, none included (`src/**` + `/x.ts`);
 * - `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`): one character of (or not of) a set;
 * - `{ts,tsx}`: alternatives, expanded before matching (at most `MAX_ALTERNATIVES`);
 * - a pattern without `/` matches a file name at any depth (`*.ts` is `**` + `/*.ts`),
 *   as in ripgrep's `--glob` and `.gitignore`; one with a `/` (even a leading one) is anchored
 *   at the repository root.
 */

export const MAX_GLOB_CHARS = 512;
export const MAX_ALTERNATIVES = 64;

type Token =
  | { type: 'char'; value: string }
  | { type: 'any' }
  | { type: 'star' }
  | { type: 'set'; negated: boolean; ranges: Array<[string, string]> };

/** A segment of a pattern: `**`, or a sequence of tokens matching one path segment. */
type Segment = { type: 'globstar' } | { type: 'tokens'; tokens: Token[] };

export interface Glob {
  readonly source: string;
  matches(path: string): boolean;
}

export function compileGlob(source: string): Glob {
  if (source.length === 0) throw new InvalidGlobError(source, 'it is empty');
  if (source.length > MAX_GLOB_CHARS)
    throw new InvalidGlobError(source.slice(0, 80), `longer than ${MAX_GLOB_CHARS} characters`);
  if (source.includes('\0')) throw new InvalidGlobError(source, 'it contains a NUL byte');
  // A `/` anywhere (a leading one included: `/*.md`) anchors the pattern at the root.
  const alternatives = expandBraces(source.replace(/^\.\//, ''), source).map((pattern) =>
    (pattern.includes('/') ? pattern : `**/${pattern}`)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => parseSegment(s, source)),
  );
  return {
    source,
    matches(path) {
      const parts = path.split('/');
      return alternatives.some((segments) => matchSegments(segments, parts));
    },
  };
}

function expandBraces(pattern: string, source: string): string[] {
  const open = findBrace(pattern);
  if (open === -1) return [pattern];
  let depth = 0;
  let close = -1;
  const commas: number[] = [];
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i += 1;
    else if (c === '{') depth += 1;
    else if (c === '}') {
      depth -= 1;
      if (depth === 0) {
        close = i;
        break;
      }
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close === -1) throw new InvalidGlobError(source, 'a { has no matching }');
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  const bounds = [open, ...commas, close];
  const results: string[] = [];
  for (let i = 0; i < bounds.length - 1; i++) {
    const choice = pattern.slice((bounds[i] as number) + 1, bounds[i + 1]);
    for (const expanded of expandBraces(`${head}${choice}${tail}`, source)) {
      results.push(expanded);
      if (results.length > MAX_ALTERNATIVES) {
        throw new InvalidGlobError(source, `its {braces} expand to more than ${MAX_ALTERNATIVES} patterns`);
      }
    }
  }
  return results;
}

function findBrace(pattern: string): number {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') i += 1;
    else if (pattern[i] === '{') return i;
  }
  return -1;
}

function parseSegment(segment: string, source: string): Segment {
  if (segment === '**') return { type: 'globstar' };
  const tokens: Token[] = [];
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (c === '\\' && i + 1 < segment.length) {
      tokens.push({ type: 'char', value: segment[++i] as string });
    } else if (c === '*') {
      // `a**b` inside a segment is the same as `a*b`.
      if (tokens.at(-1)?.type !== 'star') tokens.push({ type: 'star' });
    } else if (c === '?') {
      tokens.push({ type: 'any' });
    } else if (c === '[') {
      const { token, end } = parseSet(segment, i, source);
      tokens.push(token);
      i = end;
    } else {
      tokens.push({ type: 'char', value: c });
    }
  }
  return { type: 'tokens', tokens };
}

function parseSet(segment: string, start: number, source: string): { token: Token; end: number } {
  let i = start + 1;
  const negated = segment[i] === '!' || segment[i] === '^';
  if (negated) i += 1;
  const ranges: Array<[string, string]> = [];
  // A `]` right after the opening bracket is a member, as in POSIX.
  let first = true;
  for (; i < segment.length; i++) {
    let c = segment[i] as string;
    if (c === ']' && !first) return { token: { type: 'set', negated, ranges }, end: i };
    first = false;
    if (c === '\\' && i + 1 < segment.length) c = segment[++i] as string;
    if (segment[i + 1] === '-' && i + 2 < segment.length && segment[i + 2] !== ']') {
      let to = segment[i + 2] as string;
      i += 2;
      if (to === '\\' && i + 1 < segment.length) to = segment[++i] as string;
      if (to < c) throw new InvalidGlobError(source, `the range ${c}-${to} is reversed`);
      ranges.push([c, to]);
    } else {
      ranges.push([c, c]);
    }
  }
  throw new InvalidGlobError(source, 'a [ has no matching ]');
}

/** Pattern segments against path segments; `**` by memoised search, so at most P x N states. */
function matchSegments(segments: Segment[], parts: string[]): boolean {
  const seen = new Set<number>();
  const width = parts.length + 1;
  const visit = (s: number, p: number): boolean => {
    if (s === segments.length) return p === parts.length;
    const key = s * width + p;
    if (seen.has(key)) return false;
    seen.add(key);
    const segment = segments[s] as Segment;
    if (segment.type === 'globstar') {
      for (let q = p; q <= parts.length; q++) if (visit(s + 1, q)) return true;
      return false;
    }
    return p < parts.length && matchTokens(segment.tokens, parts[p] as string) && visit(s + 1, p + 1);
  };
  return visit(0, 0);
}

/**
 * One segment against its tokens, `*` by the usual two-pointer backtracking (remember the last
 * star, retry from one character further): O(tokens x characters) at worst, no recursion.
 */
function matchTokens(tokens: Token[], text: string): boolean {
  let t = 0;
  let x = 0;
  let starToken = -1;
  let starText = 0;
  while (x < text.length) {
    const token = tokens[t];
    if (token !== undefined && token.type !== 'star' && matchOne(token, text[x] as string)) {
      t += 1;
      x += 1;
    } else if (token?.type === 'star') {
      starToken = t;
      starText = x;
      t += 1;
    } else if (starToken !== -1) {
      t = starToken + 1;
      starText += 1;
      x = starText;
    } else {
      return false;
    }
  }
  while (tokens[t]?.type === 'star') t += 1;
  return t === tokens.length;
}

function matchOne(token: Exclude<Token, { type: 'star' }>, c: string): boolean {
  switch (token.type) {
    case 'char':
      return token.value === c;
    case 'any':
      return true;
    case 'set': {
      const inSet = token.ranges.some(([from, to]) => c >= from && c <= to);
      return inSet !== token.negated;
    }
  }
}
