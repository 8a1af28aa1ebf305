import { RE2JS } from 're2js';

/**
 * Every match of a linear-time pattern (`re2js`, a port of RE2: no backtracking, so the time
 * is linear in the text whatever it holds). `group` is the capture whose range is reported.
 */
export function* matches(
  pattern: RE2JS,
  text: string,
  group = 0,
): Generator<{ start: number; end: number; value: string }> {
  const matcher = pattern.matcher(text);
  while (matcher.find()) {
    const start = matcher.start(group);
    const end = matcher.end(group);
    if (start < 0 || end <= start) continue;
    yield { start, end, value: text.slice(start, end) };
  }
}

/**
 * Like `matches`, but a match `accept` refuses is tried again one character later, so a
 * refused run (a phone number's tail read as a card's first group) cannot hide a value that
 * begins inside it. Matches are short (the patterns bound their length), so this stays linear.
 */
export function* acceptedMatches(
  pattern: RE2JS,
  text: string,
  accept: (value: string, start: number, end: number) => boolean,
): Generator<{ start: number; end: number; value: string }> {
  const matcher = pattern.matcher(text);
  let from = 0;
  while (from < text.length && matcher.find(from)) {
    const start = matcher.start();
    const end = matcher.end();
    const value = text.slice(start, end);
    if (end > start && accept(value, start, end)) {
      yield { start, end, value };
      from = end;
    } else {
      from = start + 1;
    }
  }
}

/**
 * A pattern compiled on its first use, not when its module loads: every function that stores or
 * posts anything loads the redaction layer, and compiling its patterns at load cost each cold
 * start about 50 ms of CPU (`npm run bench:cold-import`), whether it ever redacted or not.
 */
export function compile(source: string, caseInsensitive = false): () => RE2JS {
  let compiled: RE2JS | undefined;
  return () => {
    compiled ??= RE2JS.compile(source, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    return compiled;
  };
}

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const WORD = /[A-Za-z0-9_]/;
/** Whether the characters either side of `[start, end)` leave it a whole token (no lookaround in RE2). */
export function standsAlone(text: string, start: number, end: number, inside = WORD): boolean {
  const before = text[start - 1];
  const after = text[end];
  return (before === undefined || !inside.test(before)) && (after === undefined || !inside.test(after));
}

/**
 * Runs `scan` on each line `wanted` lets through, with offsets into the whole text. A cheap
 * test in plain code (a character, a digit count) keeps the RE2 matcher off the lines that
 * cannot hold the value: RE2's time is linear, but a JavaScript port's constant is large.
 */
export function eachLine<T extends { start: number; end: number }>(
  text: string,
  wanted: (line: string) => boolean,
  scan: (line: string) => Iterable<T>,
): T[] {
  const found: T[] = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end);
    if (line.length > 0 && wanted(line)) {
      for (const hit of scan(line)) found.push({ ...hit, start: hit.start + start, end: hit.end + start });
    }
    if (newline < 0) break;
    start = newline + 1;
  }
  return found;
}

/** How many ASCII digits `line` has, stopping at `enough`. */
export function digitCount(line: string, enough: number): number {
  let count = 0;
  for (let index = 0; index < line.length && count < enough; index += 1) {
    const code = line.charCodeAt(index);
    if (code >= 48 && code <= 57) count += 1;
  }
  return count;
}
