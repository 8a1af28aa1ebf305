import { readFileSync } from 'node:fs';
import { RE2JS } from 're2js';
import { InvalidPatternError } from './errors.ts';
import { clipLine, decodeText, formatBytes } from './text.ts';

/**
 * `search_code`'s engine: grep-style matches with context over the files of one snapshot.
 *
 * Every search is bounded by its input, never by a clock: a literal is found with `indexOf`, a
 * regular expression runs on RE2 (`re2js`, a port of Go's RE2), which matches every pattern it
 * accepts in time linear in the text, whatever the pattern and however busy the machine. RE2 has
 * no backreferences or lookaround (the constructs that need backtracking); a pattern using them
 * is refused with one sentence saying so. The text read is itself capped (`maxBytes`): past it
 * the search stops at a file boundary and says where.
 *
 * Output, as `grep -n` prints it: `path:line:text` for a matching line, `path-line-text` for a
 * context line, `--` between groups; capped in matches and characters, with a last line saying
 * what was left out.
 */

export interface SearchFile {
  /** Repository path, as printed. */
  path: string;
  /** Where the file is on disk (the snapshot's tree). */
  absolutePath: string;
}

export interface SearchOptions {
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
  contextLines: number;
  maxMatches: number;
  maxOutputChars: number;
  /** Longest line printed, in characters (minified files have megabyte lines). */
  maxLineChars: number;
  /** Bytes of text one search reads at most; the files after are named as not searched. */
  maxBytes: number;
}

interface FileHits {
  file: SearchFile;
  lines: string[];
  /** 0-based indexes of matching lines. */
  matches: number[];
}

/** Where a search stopped early: at its match cap, or at its byte budget before `notSearched` files. */
interface Stop {
  atMatches: boolean;
  notSearched: number;
}

/** Whether a line matches; `inText` is a quick test of a whole file that never misses a matching line. */
interface LineMatcher {
  inText(text: string): boolean;
  inLine(line: string): boolean;
}

export async function searchFiles(files: readonly SearchFile[], options: SearchOptions): Promise<string> {
  const matcher = compileMatcher(options);
  const { hits, stop } = await scan(files, matcher, options);
  const count = hits.reduce((sum, h) => sum + h.matches.length, 0);
  const budgetNote =
    stop.notSearched > 0
      ? `\n[${stop.notSearched} file(s) not searched: a search reads at most ${formatBytes(options.maxBytes)} of text; narrow it with path_glob]`
      : '';
  if (count === 0) {
    const searched = files.length - stop.notSearched;
    return `No matches for ${options.regex ? 'regular expression' : 'literal'} ${JSON.stringify(options.pattern)} in ${searched} file(s).${budgetNote}`;
  }
  return `${await formatHits(hits, count, stop.atMatches, files.length - stop.notSearched, options)}${budgetNote}`;
}

function compileMatcher(options: SearchOptions): LineMatcher {
  if (!options.regex) {
    if (options.caseSensitive) {
      const needle = options.pattern;
      return { inText: (text) => text.includes(needle), inLine: (line) => line.includes(needle) };
    }
    const needle = options.pattern.toLowerCase();
    return {
      inText: (text) => text.toLowerCase().includes(needle),
      inLine: (line) => line.toLowerCase().includes(needle),
    };
  }
  try {
    // Compiled as written first, so an error quotes the pattern the model sent (flags show as a prefix).
    RE2JS.compile(options.pattern);
  } catch (cause) {
    throw new InvalidPatternError(options.pattern, { cause });
  }
  // MULTILINE: ^ and $ match at line ends, so a test of the whole file finds every line a test
  // of each line would (and a few false positives the per-line test then drops).
  const compiled = RE2JS.compile(
    options.pattern,
    RE2JS.MULTILINE | (options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE),
  );
  return { inText: (text) => compiled.test(text), inLine: (line) => compiled.test(line) };
}

/** Bytes read between two yields to the event loop (a sandbox serves other requests meanwhile). */
const YIELD_EVERY_BYTES = 1_048_576;

async function scan(
  files: readonly SearchFile[],
  matcher: LineMatcher,
  options: SearchOptions,
): Promise<{ hits: FileHits[]; stop: Stop }> {
  const hits: FileHits[] = [];
  let found = 0;
  let read = 0;
  let sinceYield = 0;
  for (const [index, file] of files.entries()) {
    let buffer: Buffer;
    try {
      // Synchronous reads: in a Lambda serving one request at a time they are the fast way
      // (400 files: ~25 ms against ~190 ms with one awaited read per file, bench/code-tools.ts).
      buffer = readFileSync(file.absolutePath);
    } catch {
      continue;
    }
    if (read + buffer.length > options.maxBytes)
      return { hits, stop: { atMatches: false, notSearched: files.length - index } };
    read += buffer.length;
    sinceYield += buffer.length;
    if (sinceYield >= YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const text = decodeText(buffer);
    if (text === undefined || !matcher.inText(text)) continue;
    const lines = text.split('\n');
    const matches: number[] = [];
    for (const [line, content] of lines.entries()) {
      if (!matcher.inLine(content)) continue;
      if (found === options.maxMatches) {
        if (matches.length > 0) hits.push({ file, lines, matches });
        return { hits, stop: { atMatches: true, notSearched: 0 } };
      }
      matches.push(line);
      found += 1;
    }
    if (matches.length > 0) hits.push({ file, lines, matches });
  }
  return { hits, stop: { atMatches: false, notSearched: 0 } };
}

async function formatHits(
  hits: FileHits[],
  count: number,
  truncated: boolean,
  fileCount: number,
  options: SearchOptions,
): Promise<string> {
  const out: string[] = [];
  let used = 0;
  let shown = 0;
  let capped = false;
  const push = (line: string): boolean => {
    if (used + line.length + 1 > options.maxOutputChars - 200) return false;
    out.push(line);
    used += line.length + 1;
    return true;
  };
  outer: for (const { file, lines, matches } of hits) {
    const matching = new Set(matches);
    for (const group of contextGroups(matches, options.contextLines, lines.length)) {
      if (out.length > 0 && !push('--')) {
        capped = true;
        break outer;
      }
      for (let index = group.from; index <= group.to; index++) {
        const isMatch = matching.has(index);
        const text = await clipLine(lines[index] as string, options.maxLineChars);
        if (!push(`${file.path}${isMatch ? ':' : '-'}${index + 1}${isMatch ? ':' : '-'}${text}`)) {
          capped = true;
          break outer;
        }
        if (isMatch) shown += 1;
      }
    }
  }
  const summary = `[${shown} of ${count}${truncated ? '+' : ''} matching lines shown, ${hits.length} file(s) with matches, ${fileCount} searched]`;
  if (capped || truncated) {
    out.push(
      `${summary} Output capped${truncated ? ` at ${options.maxMatches} matches` : ''}: narrow the search with path_glob or a more specific pattern.`,
    );
  } else {
    out.push(summary);
  }
  return out.join('\n');
}

/** Line ranges around matches, merged where they touch or overlap. */
function contextGroups(
  matches: readonly number[],
  context: number,
  lineCount: number,
): Array<{ from: number; to: number }> {
  const groups: Array<{ from: number; to: number }> = [];
  for (const index of matches) {
    const from = Math.max(0, index - context);
    const to = Math.min(lineCount - 1, index + context);
    const last = groups.at(-1);
    if (last !== undefined && from <= last.to + 1) last.to = Math.max(last.to, to);
    else groups.push({ from, to });
  }
  return groups;
}
