import { readFile } from 'node:fs/promises';
import { applyUnifiedDiff, parseUnifiedDiff } from './apply-diff.ts';
import {
  BaseBranchMissingError,
  CodeToolRefusal,
  DiffDoesNotApplyError,
  FileNotFoundError,
  FileTooLargeError,
  PathRefusedError,
} from './errors.ts';
import { commitChange } from './git-writes.ts';
import { normalizeRepoPath, parentOf } from './paths.ts';
import type { Snapshot } from './snapshot.ts';
import { clipLine, decodeText, formatBytes } from './text.ts';
import { CODE_TOOL_LIMITS, type CodeToolArgs } from './tools.ts';
import type { Workspace } from './workspace.ts';

/**
 * The write tools: `write_file` and `delete_file` (one commit each on the conversation's work
 * branch) and `get_diff` (the work branch against its base, from the compare API). Every check
 * runs before anything is written, so a refused call changes nothing.
 */

interface Head {
  sha: string;
  branchExists: boolean;
  snapshot: Snapshot;
}

async function headOfWork(workspace: Workspace): Promise<Head> {
  const { cache } = workspace.deps;
  const work = await workspace.headOf(workspace.workBranch);
  if (work !== undefined) return { sha: work, branchExists: true, snapshot: await cache.snapshot(work) };
  const base = await workspace.baseBranch();
  const sha = await workspace.headOf(base);
  if (sha === undefined) throw new BaseBranchMissingError(`${workspace.owner}/${workspace.repo}`, base);
  return { sha, branchExists: false, snapshot: await cache.snapshot(sha) };
}

/** The path to write, checked against the tree: not a directory, not a link, not under a file or a link. */
function writablePath(snapshot: Snapshot, asked: string): string {
  const path = normalizeRepoPath(asked);
  const entry = snapshot.entry(path);
  if (entry?.type === 'directory') throw new PathRefusedError(asked, 'it is a directory');
  if (entry?.type === 'link')
    throw new PathRefusedError(asked, `it is a symbolic link to ${entry.target}; write its target instead`);
  checkParents(snapshot, path, asked);
  return path;
}

/** No directory above `path` may be a file or a symbolic link (a tree entry cannot go through either). */
function checkParents(snapshot: Snapshot, path: string, asked: string): void {
  for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) {
    const above = snapshot.entry(dir);
    if (above?.type === 'file') throw new PathRefusedError(asked, `${dir} is a file, not a directory`);
    if (above?.type === 'link')
      throw new PathRefusedError(asked, `${dir} is a symbolic link; give the path without links`);
  }
}

export async function writeFile(workspace: Workspace, args: CodeToolArgs['write_file']): Promise<string> {
  if ((args.content === undefined) === (args.diff === undefined)) {
    throw new CodeToolRefusal(
      'write_file takes exactly one of content (the whole file) or diff (a unified diff), nothing was written',
    );
  }
  const head = await headOfWork(workspace);
  const path = writablePath(head.snapshot, args.path);
  const existing = head.snapshot.entry(path);
  const current = existing?.type === 'file' ? await readFile(head.snapshot.absolutePath(path)) : undefined;
  let text: string;
  if (args.diff !== undefined) {
    const diff = parseUnifiedDiff(args.diff);
    for (const named of [diff.oldPath, diff.newPath]) {
      if (named !== undefined && named !== '/dev/null' && normalizeRepoPath(named) !== path) {
        throw new DiffDoesNotApplyError(path, `its header names ${named}, not ${path}`);
      }
    }
    if (diff.oldPath === '/dev/null' && current !== undefined) {
      throw new DiffDoesNotApplyError(path, 'it creates the file (--- /dev/null), which already exists');
    }
    if (diff.newPath === '/dev/null') {
      throw new DiffDoesNotApplyError(path, 'it deletes the file (+++ /dev/null): use delete_file');
    }
    const before = current === undefined ? undefined : decodeText(current);
    if (current !== undefined && before === undefined)
      throw new DiffDoesNotApplyError(path, 'the file is binary');
    text = applyUnifiedDiff(path, before, diff);
  } else {
    text = args.content as string;
  }
  // A NUL byte makes git take the file for binary: every diff a reviewer or an approver reads
  // would say "binary" and show nothing of it, so write_file writes text without one.
  const nul = text.indexOf('\0');
  if (nul !== -1) {
    throw new CodeToolRefusal(
      `${path} would hold a NUL byte (character ${nul + 1}), which makes git treat the file as binary and hides it from every diff: write_file writes text, nothing was written`,
    );
  }
  const bytes = new TextEncoder().encode(text);
  const cap = workspace.deps.config.maxFileBytes;
  if (bytes.byteLength > cap) {
    throw new FileTooLargeError(
      `${path} would have ${formatBytes(bytes.byteLength)}, over the ${formatBytes(cap)} cap: nothing was written`,
    );
  }
  if (current !== undefined && Buffer.compare(Buffer.from(current), Buffer.from(bytes)) === 0) {
    return `No change: ${path} already has this content on ${head.branchExists ? workspace.workBranch : 'the base branch'}; nothing was committed.`;
  }
  const executable = existing?.type === 'file' && existing.executable;
  const change = { path, content: bytes, executable };
  const message = args.message ?? `${current === undefined ? 'Create' : 'Update'} ${path}`;
  const commit = await commitChange(workspace, head, change, message);
  await workspace.deps.cache.derive(head.sha, commit.sha, change);
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return (
    `Committed ${commit.sha.slice(0, 12)} on ${workspace.workBranch}${commit.created ? ' (branch created from the base branch)' : ''}: ` +
    `${current === undefined ? 'created' : 'wrote'} ${path} (${lines} lines, ${formatBytes(bytes.byteLength)}).`
  );
}

export async function deleteFile(workspace: Workspace, args: CodeToolArgs['delete_file']): Promise<string> {
  const head = await headOfWork(workspace);
  const path = normalizeRepoPath(args.path);
  const entry = head.snapshot.entry(path);
  checkParents(head.snapshot, path, args.path);
  if (entry === undefined) throw new FileNotFoundError(path, ': nothing to delete');
  if (entry.type === 'directory')
    throw new PathRefusedError(path, 'it is a directory; delete its files one by one');
  const change = { path };
  const commit = await commitChange(workspace, head, change, args.message ?? `Delete ${path}`);
  await workspace.deps.cache.derive(head.sha, commit.sha, change);
  return `Committed ${commit.sha.slice(0, 12)} on ${workspace.workBranch}${commit.created ? ' (branch created from the base branch)' : ''}: deleted ${path}.`;
}

export async function getDiff(workspace: Workspace): Promise<string> {
  const base = await workspace.baseBranch();
  if ((await workspace.headOf(workspace.workBranch)) === undefined) {
    return `No changes yet: the work branch ${workspace.workBranch} does not exist; the first write_file or delete_file creates it from ${base}.`;
  }
  const { data } = await workspace.deps.octokit.rest.repos.compareCommitsWithBasehead({
    owner: workspace.owner,
    repo: workspace.repo,
    basehead: `${base}...${workspace.workBranch}`,
  });
  const out = [
    `${workspace.workBranch} is ${data.ahead_by} commit(s) ahead of ${base} and ${data.behind_by} behind; ${data.files?.length ?? 0} file(s) changed.`,
    ...(await Promise.all(
      data.commits.map(
        async (c) =>
          `commit ${c.sha.slice(0, 12)} ${await clipLine(c.commit.message.split('\n')[0] ?? '', 120)}`,
      ),
    )),
  ];
  let used = out.join('\n').length;
  const files = data.files ?? [];
  for (const [index, file] of files.entries()) {
    const block = [
      `--- ${file.status} ${file.previous_filename ? `${file.previous_filename} -> ` : ''}${file.filename} (+${file.additions} -${file.deletions})`,
      file.patch ?? '(no textual patch: binary or too large)',
    ].join('\n');
    if (used + block.length + 1 > CODE_TOOL_LIMITS.maxOutputChars - 200) {
      out.push(`[${files.length - index} more file(s) not shown (output cap): read them with read_file]`);
      break;
    }
    out.push(block);
    used += block.length + 1;
  }
  return out.join('\n');
}
