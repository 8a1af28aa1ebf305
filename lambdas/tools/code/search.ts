import { readFile } from 'node:fs/promises';
import { InvalidPatternError } from './errors.ts';
import { runRegexJob } from './regex-worker.ts';
import { clipLine, decodeText } from './text.ts';

/**
 * `search_code`'s engine: grep-style matches with context over the files of one snapshot.
 *
 * Both kinds of search run in a worker thread with a hard time limit (regex-worker.ts): a
 * literal as an escaped pattern (linear: nothing to backtrack over), a regular expression as
 * written, compiled here first (compiling does not backtrack, and a bad pattern gets its own
 * error). A pattern that backtracks catastrophically costs at most the limit and a
 * `SearchTimeoutError`. The worker reads the files with synchronous reads, which in a Lambda
 * serving one request at a time is the fast way (400 files: ~25 ms against ~190 ms with one
 * awaited read per file, bench/code-tools.ts).
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
  /** Hard limit of a regular expression search, in milliseconds. */
  timeLimitMs: number;
}

interface FileHits {
  file: SearchFile;
  lines: string[];
  /** 0-based indexes of matching lines. */
  matches: number[];
}

export async function searchFiles(files: readonly SearchFile[], options: SearchOptions): Promise<string> {
  const { hits, truncated } = await workerSearch(files, options);
  const count = hits.reduce((sum, h) => sum + h.matches.length, 0);
  if (count === 0) {
    return `No matches for ${options.regex ? 'regular expression' : 'literal'} ${JSON.stringify(options.pattern)} in ${files.length} file(s).`;
  }
  return formatHits(hits, count, truncated, files.length, options);
}

async function workerSearch(
  files: readonly SearchFile[],
  options: SearchOptions,
): Promise<{ hits: FileHits[]; truncated: boolean }> {
  const flags = options.caseSensitive ? '' : 'i';
  // A literal is matched as an escaped pattern: no quantifier, nothing to backtrack over.
  const pattern = options.regex ? options.pattern : escapeRegExp(options.pattern);
  try {
    new RegExp(pattern, flags);
  } catch (cause) {
    throw new InvalidPatternError(options.pattern, { cause });
  }
  const result = await runRegexJob(
    {
      pattern,
      flags,
      files: files.map((f) => f.absolutePath),
      maxMatches: options.maxMatches,
    },
    options.timeLimitMs,
  );
  const byFile = new Map<number, number[]>();
  for (const [fileIndex, line] of result.hits) {
    const list = byFile.get(fileIndex) ?? [];
    list.push(line);
    byFile.set(fileIndex, list);
  }
  const hits: FileHits[] = [];
  for (const [fileIndex, matches] of byFile) {
    const file = files[fileIndex] as SearchFile;
    const text = decodeText(await readFile(file.absolutePath)) ?? '';
    hits.push({ file, lines: text.split('\n'), matches });
  }
  return { hits, truncated: result.truncated };
}

function formatHits(
  hits: FileHits[],
  count: number,
  truncated: boolean,
  fileCount: number,
  options: SearchOptions,
): string {
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
        const text = clipLine(lines[index] as string, options.maxLineChars);
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Line ranges around matches, merged where they touch or overlap. */
export function contextGroups(
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
