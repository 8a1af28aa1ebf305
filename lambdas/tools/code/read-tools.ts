import { open, readFile as readBytes } from 'node:fs/promises';
import { CodeToolRefusal, FileNotFoundError, FileTooLargeError } from './errors.ts';
import { compileGlob } from './glob.ts';
import { normalizeRepoPath } from './paths.ts';
import { searchFiles } from './search.ts';
import type { Snapshot } from './snapshot.ts';
import { clipLine, decodeText, describeType, formatBytes } from './text.ts';
import { CODE_TOOL_LIMITS, type CodeToolArgs } from './tools.ts';
import type { ReadRef, Workspace } from './workspace.ts';

/**
 * The read tools: `list_files`, `read_file`, `search_code`, over the snapshot (unpacked
 * tarball) of the ref reads see: the work branch once it exists, the base branch before.
 */

async function snapshotOf(workspace: Workspace): Promise<{ ref: ReadRef; snapshot: Snapshot }> {
  const ref = await workspace.readRef();
  return { ref, snapshot: await workspace.deps.cache.snapshot(ref.sha) };
}

const refLine = (ref: ReadRef) => `[${ref.branch} at ${ref.sha.slice(0, 12)}]`;

export async function listFiles(workspace: Workspace, args: CodeToolArgs['list_files']): Promise<string> {
  const { ref, snapshot } = await snapshotOf(workspace);
  const dir =
    args.path === undefined ? '' : snapshot.resolve(normalizeRepoPath(args.path, { allowRoot: true }));
  if (dir !== '') {
    const entry = snapshot.entry(dir);
    if (entry === undefined) throw new FileNotFoundError(dir, ' (no such directory)');
    if (entry.type === 'file')
      throw new FileNotFoundError(dir, ' as a directory: it is a file, read it with read_file');
  }
  const glob = args.glob === undefined ? undefined : compileGlob(args.glob);
  const inDir = (path: string) => dir === '' || path.startsWith(`${dir}/`);
  const entries = [
    ...snapshot.files().map((f) => ({ path: f.path, text: `${f.path}  (${formatBytes(f.size)})` })),
    ...snapshot.links().map((l) => ({ path: l.path, text: `${l.path} -> ${l.target}  (symbolic link)` })),
  ]
    .filter((e) => inDir(e.path) && (glob === undefined || glob.matches(e.path)))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const max = args.max_results ?? CODE_TOOL_LIMITS.defaultListed;
  const lines = [
    `${refLine(ref)} ${entries.length} path(s)${dir === '' ? '' : ` under ${dir}/`}${glob ? ` matching ${glob.source}` : ''}`,
  ];
  let used = lines[0]?.length ?? 0;
  let shown = 0;
  for (const entry of entries) {
    if (shown === max || used + entry.text.length + 1 > CODE_TOOL_LIMITS.maxOutputChars - 200) break;
    lines.push(entry.text);
    used += entry.text.length + 1;
    shown += 1;
  }
  if (shown < entries.length) {
    lines.push(`[${entries.length - shown} more not shown: narrow with path or glob]`);
  }
  return lines.join('\n');
}

export async function readFile(workspace: Workspace, args: CodeToolArgs['read_file']): Promise<string> {
  const { ref, snapshot } = await snapshotOf(workspace);
  const asked = normalizeRepoPath(args.path);
  const path = snapshot.resolve(asked);
  const entry = snapshot.entry(path);
  if (entry === undefined)
    throw new FileNotFoundError(asked, ` on ${ref.branch}: list_files shows what exists`);
  if (entry.type === 'directory')
    throw new FileNotFoundError(asked, ': it is a directory, list it with list_files');
  if (entry.type === 'link') throw new FileNotFoundError(asked, `: it is a symbolic link to ${entry.target}`);
  const absolute = snapshot.absolutePath(path);
  const via = path === asked ? '' : ` (via symbolic link: ${path})`;
  if (entry.size > workspace.deps.config.maxFileBytes) {
    const head = await readHead(absolute);
    throw new FileTooLargeError(
      `${asked}${via} is not printed: ${formatBytes(entry.size)}, ${describeType(path, head)}, over the ${formatBytes(workspace.deps.config.maxFileBytes)} cap. ` +
        'Use search_code to find the lines you need in it.',
    );
  }
  const bytes = await readBytes(absolute);
  const text = decodeText(bytes);
  if (text === undefined) {
    throw new FileTooLargeError(
      `${asked}${via} is binary (${describeType(path, bytes)}, ${formatBytes(bytes.length)}): its content is not printed.`,
    );
  }
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const total = text === '' ? 0 : lines.length;
  if (total === 0) return `${refLine(ref)} ${asked}${via}: empty file`;
  const start = args.start_line ?? 1;
  const end = Math.min(args.end_line ?? total, total);
  if (start > total)
    throw new CodeToolRefusal(`${asked} has ${total} lines: start_line ${start} is past its end`);
  if (end < start) throw new CodeToolRefusal(`end_line ${end} is before start_line ${start}`);
  const width = String(end).length;
  const out = [`${refLine(ref)} ${asked}${via}: ${total} lines, ${formatBytes(bytes.length)}`];
  let used = out[0]?.length ?? 0;
  let line = start;
  for (; line <= end; line++) {
    const printed = `${String(line).padStart(width)}\t${await clipLine(lines[line - 1] as string, CODE_TOOL_LIMITS.maxLineChars)}`;
    if (used + printed.length + 1 > CODE_TOOL_LIMITS.maxOutputChars - 200) break;
    out.push(printed);
    used += printed.length + 1;
  }
  if (line <= end)
    out.push(`[lines ${line}-${end} not shown (output cap): call read_file with start_line ${line}]`);
  else if (end < total) out.push(`[${total - end} more lines after line ${end}]`);
  return out.join('\n');
}

export async function searchCode(workspace: Workspace, args: CodeToolArgs['search_code']): Promise<string> {
  const { ref, snapshot } = await snapshotOf(workspace);
  const glob = args.path_glob === undefined ? undefined : compileGlob(args.path_glob);
  const cap = workspace.deps.config.maxFileBytes * 4;
  const candidates = snapshot.files().filter((f) => glob === undefined || glob.matches(f.path));
  const files = candidates
    .filter((f) => f.size <= cap)
    .map((f) => ({ path: f.path, absolutePath: snapshot.absolutePath(f.path) }));
  const skipped = candidates.length - files.length;
  const output = await searchFiles(files, {
    pattern: args.pattern,
    regex: args.regex ?? false,
    caseSensitive: args.case_sensitive ?? true,
    contextLines: args.context_lines ?? CODE_TOOL_LIMITS.defaultContextLines,
    maxMatches: args.max_results ?? CODE_TOOL_LIMITS.defaultMatches,
    maxOutputChars: CODE_TOOL_LIMITS.maxOutputChars - 200,
    maxLineChars: CODE_TOOL_LIMITS.maxLineChars,
    maxBytes: workspace.deps.config.searchMaxMb * 1_048_576,
  });
  const note = skipped > 0 ? `\n[${skipped} file(s) over ${formatBytes(cap)} not searched]` : '';
  return `${refLine(ref)}\n${output}${note}`;
}

async function readHead(absolute: string): Promise<Uint8Array> {
  const handle = await open(absolute, 'r');
  try {
    const buffer = new Uint8Array(16);
    const { bytesRead } = await handle.read(buffer, 0, 16, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
