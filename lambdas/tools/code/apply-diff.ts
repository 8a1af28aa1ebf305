import { DiffDoesNotApplyError, MalformedDiffError } from './errors.ts';

/**
 * Applies a unified diff of one file (`diff -u`, `git diff`), the way `patch` does without fuzz:
 * every hunk's context and removed lines must be found exactly, at the line the hunk header
 * says or, when earlier edits moved it, at the nearest place after the previous hunk. A hunk
 * that is found nowhere fails the whole diff (`DiffDoesNotApplyError`), so nothing is half applied.
 *
 * Lenient where models are sloppy and the meaning is still clear: the line counts in `@@`
 * headers are not trusted (a hunk runs to the next `@@`), the `---`/`+++` header is optional,
 * and an empty line inside a hunk is an empty context line.
 */

export interface Hunk {
  /** 1-based first line of the old side, from the header (0 for an insertion at the start). */
  oldStart: number;
  lines: HunkLine[];
}

export type HunkLine = { op: ' ' | '-' | '+'; text: string; noNewlineAfter?: true };

export interface ParsedDiff {
  /** Paths named by the `---` and `+++` headers (without `a/`, `b/`), when present. */
  oldPath?: string;
  newPath?: string;
  hunks: Hunk[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function parseUnifiedDiff(diff: string): ParsedDiff {
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const parsed: ParsedDiff = { hunks: [] };
  let i = 0;
  // Preamble: `diff --git`, `index`, mode lines, then `---` / `+++`.
  for (; i < lines.length && !HUNK_HEADER.test(lines[i] as string); i++) {
    const line = lines[i] as string;
    if (line.startsWith('--- ')) parsed.oldPath = headerPath(line.slice(4));
    else if (line.startsWith('+++ ')) parsed.newPath = headerPath(line.slice(4));
  }
  let current: Hunk | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    const header = HUNK_HEADER.exec(line);
    if (header) {
      current = { oldStart: Number(header[1]), lines: [] };
      parsed.hunks.push(current);
      continue;
    }
    if (current === undefined) throw new MalformedDiffError(`line ${i + 1} comes before any @@ hunk header`);
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      throw new MalformedDiffError('it changes more than one file; write_file takes the diff of one file');
    }
    if (line.startsWith('\\')) {
      const last = current.lines.at(-1);
      if (last === undefined) throw new MalformedDiffError(`line ${i + 1}: "\\ No newline" follows no line`);
      last.noNewlineAfter = true;
      continue;
    }
    if (line === '') {
      current.lines.push({ op: ' ', text: '' });
      continue;
    }
    const op = line[0];
    if (op !== ' ' && op !== '-' && op !== '+') {
      throw new MalformedDiffError(`line ${i + 1} starts with ${JSON.stringify(op)}, not a space, - or +`);
    }
    current.lines.push({ op, text: line.slice(1) });
  }
  if (parsed.hunks.length === 0) throw new MalformedDiffError('it has no @@ hunk');
  for (const [index, hunk] of parsed.hunks.entries()) {
    if (!hunk.lines.some((l) => l.op !== ' '))
      throw new MalformedDiffError(`hunk ${index + 1} changes nothing`);
  }
  return parsed;
}

function headerPath(raw: string): string {
  // `--- a/src/x.ts\t2026-01-01 ...`: the date after a tab is not part of the path.
  const path = raw.split('\t')[0]?.trim() ?? '';
  if (path === '/dev/null') return path;
  return path.replace(/^[ab]\//, '');
}

/**
 * The file after the diff. `original` is `undefined` for a file that does not exist yet (the
 * diff must then only add lines). Throws `DiffDoesNotApplyError` naming the first hunk that fails.
 */
export function applyUnifiedDiff(path: string, original: string | undefined, diff: ParsedDiff): string {
  const source = original ?? '';
  const hadFinalNewline = source === '' || source.endsWith('\n');
  const lines = source === '' ? [] : (hadFinalNewline ? source.slice(0, -1) : source).split('\n');
  const output: string[] = [];
  let cursor = 0;
  let finalNewline = hadFinalNewline;
  for (const [index, hunk] of diff.hunks.entries()) {
    const old = hunk.lines.filter((l) => l.op !== '+').map((l) => l.text);
    const added = hunk.lines.filter((l) => l.op !== '-');
    // `-0,0` inserts before line 1; `-5,0` inserts after line 5; otherwise line oldStart is the first old line.
    const hinted = old.length === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const at = locate(lines, old, hinted, cursor);
    if (at === undefined) throw new DiffDoesNotApplyError(path, mismatch(index, hunk, lines, old, hinted));
    output.push(...lines.slice(cursor, at), ...added.map((l) => l.text));
    cursor = at + old.length;
    if (cursor === lines.length) {
      const lastNew = added.at(-1);
      // The new file ends with this hunk's last line; with none, with an earlier line, which had its newline.
      finalNewline = lastNew === undefined || lastNew.noNewlineAfter !== true;
    }
  }
  output.push(...lines.slice(cursor));
  if (output.length === 0) return '';
  return `${output.join('\n')}${finalNewline ? '\n' : ''}`;
}

/** Where `old` occurs in `lines` at or after `from`: at the hint if it fits, else the nearest place to it. */
function locate(lines: string[], old: string[], hint: number, from: number): number | undefined {
  const last = lines.length - old.length;
  const fits = (at: number) => at >= from && at <= last && old.every((text, k) => lines[at + k] === text);
  const start = Math.min(Math.max(hint, from), Math.max(last, from));
  for (let distance = 0; start - distance >= from || start + distance <= last; distance++) {
    if (fits(start + distance)) return start + distance;
    if (distance > 0 && fits(start - distance)) return start - distance;
  }
  return undefined;
}

function mismatch(index: number, hunk: Hunk, lines: string[], old: string[], hinted: number): string {
  const at = Math.min(Math.max(hinted, 0), lines.length);
  const where = `hunk ${index + 1} (@@ -${hunk.oldStart})`;
  if (old.length > lines.length) {
    return `${where} expects ${old.length} lines of context and removals, the file has ${lines.length}`;
  }
  for (const [k, text] of old.entries()) {
    const actual = lines[at + k];
    if (actual !== text) {
      return (
        `${where}: its lines are found nowhere in the file; at line ${at + k + 1} it expects ` +
        `${JSON.stringify(text)} but the file has ${actual === undefined ? 'no line' : JSON.stringify(actual)}. ` +
        'Read the file again and make the diff against its current content.'
      );
    }
  }
  return `${where}: its lines overlap an earlier hunk or appear only before it`;
}
