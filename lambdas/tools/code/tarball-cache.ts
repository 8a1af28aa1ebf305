import { randomUUID } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { x as extract, type ReadEntry } from 'tar';
import { NotACommitShaError, TarballTooLargeError } from './errors.ts';
import { normalizeRepoPath } from './paths.ts';
import { Snapshot, SnapshotManifest } from './snapshot.ts';

/**
 * Commits' trees, unpacked from their tarballs into `/tmp` and kept across warm invocations,
 * keyed by commit sha (a sha's tree never changes, so a cached tree is never stale).
 *
 * Safe unpacking, with the `tar` package: only regular files and directories are written;
 * symbolic links go to the manifest (never to disk, so nothing can be read through one), and
 * hard links, devices and FIFOs are skipped. Entry paths pass `normalizeRepoPath` (no `..`, no
 * absolute path, no `.git/`) on top of `tar`'s own refusal of such paths. A tree is unpacked
 * into a scratch directory and renamed into place, so a Lambda killed mid-unpack leaves no
 * half tree under the sha.
 *
 * Bounded: after a new tree is in, least recently used trees are deleted until the total of
 * file sizes is under `maxBytes` (the newest tree stays even if it alone is larger).
 */

export interface TarballCacheOptions {
  /** Directory of the cache, e.g. `/tmp/code-tools`. */
  root: string;
  /** Total file bytes of the cached trees past which old trees are evicted. */
  maxBytes: number;
  /** Largest tarball accepted, in bytes (compressed). */
  maxTarballBytes: number;
  /** Fetches the gzipped tarball of a commit. */
  download: (sha: string) => Promise<Uint8Array>;
}

export interface CacheStats {
  hits: number;
  misses: number;
  evictions: number;
  /** Trees made from a parent's tree and one change (`derive`), with no download. */
  derived: number;
}

/** One file written (`content`) or deleted (no `content`) by a commit of the tools. */
export interface FileChange {
  path: string;
  content?: Uint8Array;
  executable?: boolean;
}

/** Hard links made at once when deriving a tree. */
const LINK_BATCH = 64;

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export class TarballCache {
  private readonly used = new Map<string, { snapshot: Snapshot; lastUsed: number }>();
  private readonly pending = new Map<string, Promise<Snapshot>>();
  /** Scratch directories of unpacks under way, which eviction must leave alone. */
  private readonly scratch = new Set<string>();
  private tick = 0;
  readonly stats: CacheStats = { hits: 0, misses: 0, evictions: 0, derived: 0 };

  constructor(private readonly options: TarballCacheOptions) {}

  /** The tree of commit `sha`, from memory, from `/tmp`, or downloaded and unpacked. */
  async snapshot(sha: string): Promise<Snapshot> {
    // The sha names a directory: only a real sha may.
    if (!SHA.test(sha)) throw new NotACommitShaError(sha);
    const known = this.used.get(sha);
    if (known !== undefined) {
      this.stats.hits += 1;
      known.lastUsed = ++this.tick;
      return known.snapshot;
    }
    const inFlight = this.pending.get(sha);
    if (inFlight !== undefined) return inFlight;
    const loading = this.load(sha).finally(() => this.pending.delete(sha));
    this.pending.set(sha, loading);
    return loading;
  }

  private async load(sha: string): Promise<Snapshot> {
    const onDisk = await this.readFromDisk(sha);
    if (onDisk !== undefined) {
      this.stats.hits += 1;
      this.used.set(sha, { snapshot: onDisk, lastUsed: ++this.tick });
      return onDisk;
    }
    this.stats.misses += 1;
    const tarball = await this.options.download(sha);
    if (tarball.byteLength > this.options.maxTarballBytes) {
      throw new TarballTooLargeError(sha, tarball.byteLength, this.options.maxTarballBytes);
    }
    const snapshot = await this.unpack(sha, tarball);
    this.used.set(sha, { snapshot, lastUsed: ++this.tick });
    await this.evict(sha);
    return snapshot;
  }

  private async readFromDisk(sha: string): Promise<Snapshot | undefined> {
    const dir = join(this.options.root, sha);
    let raw: string;
    try {
      raw = await readFile(join(dir, 'manifest.json'), 'utf8');
    } catch {
      return undefined;
    }
    const parsed = SnapshotManifest.safeParse(JSON.parse(raw));
    if (!parsed.success || parsed.data.sha !== sha) {
      await rm(dir, { recursive: true, force: true });
      return undefined;
    }
    return new Snapshot(join(dir, 'tree'), parsed.data);
  }

  private async unpack(sha: string, tarball: Uint8Array): Promise<Snapshot> {
    const scratchName = `.unpack-${randomUUID()}`;
    const scratch = join(this.options.root, scratchName);
    this.scratch.add(scratchName);
    const tree = join(scratch, 'tree');
    await mkdir(tree, { recursive: true });
    const manifest: SnapshotManifest = { sha, files: {}, links: {}, skipped: [], bytes: 0 };
    try {
      await new Promise<void>((resolve, reject) => {
        const unpack = extract({
          cwd: tree,
          // GitHub's tarballs put everything under one `owner-repo-sha/` directory.
          strip: 1,
          preserveOwner: false,
          filter: (path, entry) => admit(path, entry as ReadEntry, manifest),
          onwarn: (code, message) => manifest.skipped.push({ path: '', reason: `${code}: ${message}` }),
        });
        unpack.on('error', reject);
        unpack.on('close', () => resolve());
        unpack.end(Buffer.from(tarball.buffer, tarball.byteOffset, tarball.byteLength));
      });
      await writeFile(join(scratch, 'manifest.json'), JSON.stringify(manifest));
      const dir = join(this.options.root, sha);
      await rm(dir, { recursive: true, force: true });
      await rename(scratch, dir);
      return new Snapshot(join(dir, 'tree'), manifest);
    } catch (error) {
      await rm(scratch, { recursive: true, force: true });
      throw error;
    } finally {
      this.scratch.delete(scratchName);
    }
  }

  /**
   * Records the tree of `sha`, a commit the tools just made on top of `parentSha` with one
   * file changed, without downloading its tarball: the parent's files are hard-linked (no
   * copy of their bytes) and the changed file written or left out. The commit's tree is, by
   * construction, the parent's tree plus that change, so this is the tarball's content; a
   * change to `.gitattributes` (which can change what a tarball leaves out) is not derived.
   * Does nothing when the parent is not cached: the next read then downloads.
   */
  async derive(parentSha: string, sha: string, change: FileChange): Promise<void> {
    const parent = this.used.get(parentSha)?.snapshot;
    if (parent === undefined || this.used.has(sha) || change.path.split('/').at(-1) === '.gitattributes')
      return;
    const scratchName = `.derive-${randomUUID()}`;
    const scratch = join(this.options.root, scratchName);
    this.scratch.add(scratchName);
    try {
      const manifest: SnapshotManifest = structuredClone({ ...parent.manifest, sha });
      const previous = manifest.files[change.path];
      manifest.bytes -= previous?.[0] ?? 0;
      delete manifest.files[change.path];
      delete manifest.links[change.path];
      const made = new Set<string>();
      const ensureDir = async (dir: string) => {
        if (made.has(dir)) return;
        await mkdir(dir, { recursive: true });
        made.add(dir);
      };
      const tree = join(scratch, 'tree');
      await ensureDir(tree);
      const paths = Object.keys(manifest.files);
      for (const path of paths) await ensureDir(dirname(join(tree, ...path.split('/'))));
      // Links in batches: libuv's thread pool runs several at once, one await each would serialise them.
      for (let start = 0; start < paths.length; start += LINK_BATCH) {
        await Promise.all(
          paths
            .slice(start, start + LINK_BATCH)
            .map((path) => link(parent.absolutePath(path), join(tree, ...path.split('/')))),
        );
      }
      if (change.content !== undefined) {
        const target = join(tree, ...change.path.split('/'));
        await ensureDir(dirname(target));
        await writeFile(target, change.content);
        manifest.files[change.path] = [change.content.byteLength, change.executable ? 0o755 : 0o644];
        manifest.bytes += change.content.byteLength;
      }
      await writeFile(join(scratch, 'manifest.json'), JSON.stringify(manifest));
      const dir = join(this.options.root, sha);
      await rename(scratch, dir);
      this.used.set(sha, { snapshot: new Snapshot(join(dir, 'tree'), manifest), lastUsed: ++this.tick });
      this.stats.derived += 1;
      await this.evict(sha);
    } catch {
      // Only an optimisation: the next read of `sha` downloads its tarball instead.
      await rm(scratch, { recursive: true, force: true });
    } finally {
      this.scratch.delete(scratchName);
    }
  }

  /** Deletes least recently used trees (never `keep`) until the total is under the cap. */
  private async evict(keep: string): Promise<void> {
    await this.forgetUnknownTrees(keep);
    let total = [...this.used.values()].reduce((sum, u) => sum + u.snapshot.manifest.bytes, 0);
    const oldestFirst = [...this.used.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [sha, { snapshot }] of oldestFirst) {
      if (total <= this.options.maxBytes) break;
      if (sha === keep) continue;
      this.used.delete(sha);
      total -= snapshot.manifest.bytes;
      this.stats.evictions += 1;
      await rm(join(this.options.root, sha), { recursive: true, force: true });
    }
  }

  /**
   * Trees on disk this instance does not track (left by an earlier instance in the same
   * execution environment, or scratch directories of a killed unpack) are deleted, so the
   * cap holds for everything under the root.
   */
  private async forgetUnknownTrees(keep: string): Promise<void> {
    const names = await readdir(this.options.root).catch(() => [] as string[]);
    for (const name of names) {
      if (name === keep || this.used.has(name) || this.pending.has(name) || this.scratch.has(name)) continue;
      await rm(join(this.options.root, name), { recursive: true, force: true });
    }
  }
}

/** Decides one tarball entry: files and directories are unpacked, links recorded, the rest skipped. */
function admit(rawPath: string, entry: ReadEntry, manifest: SnapshotManifest): boolean {
  // `tar` strips a leading `/` and then the top directory; refuse such entries outright instead.
  if (rawPath.startsWith('/') || rawPath.split('/').includes('..')) {
    manifest.skipped.push({ path: rawPath, reason: 'absolute or climbing (..) entry path' });
    return false;
  }
  // Strip the top directory as `strip: 1` does, then apply the tools' own path rules.
  const stripped = rawPath.split('/').slice(1).join('/');
  if (stripped === '' || stripped === '.') return entry.type === 'Directory';
  let path: string;
  try {
    path = normalizeRepoPath(stripped);
  } catch (error) {
    manifest.skipped.push({ path: stripped, reason: (error as Error).message });
    return false;
  }
  switch (entry.type) {
    case 'File':
    case 'OldFile':
    case 'ContiguousFile':
      // A path repeated in the archive: the later entry wins on disk, so it does here too.
      manifest.bytes -= manifest.files[path]?.[0] ?? 0;
      manifest.files[path] = [entry.size ?? 0, entry.mode ?? 0o644];
      manifest.bytes += entry.size ?? 0;
      return true;
    case 'Directory':
      return true;
    case 'SymbolicLink':
      manifest.links[path] = entry.linkpath ?? '';
      return false;
    default:
      manifest.skipped.push({ path, reason: `a ${entry.type} entry is not unpacked` });
      return false;
  }
}
