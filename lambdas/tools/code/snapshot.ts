import { join } from 'node:path';
import * as z from 'zod';
import { resolveLinks } from './paths.ts';

/**
 * One commit's tree as unpacked from its tarball: regular files on disk under `treeDir`, and
 * a manifest (zod-checked when read back from `/tmp`) of what the tarball held. Symbolic links
 * are only in the manifest, never on disk, so no read can follow one out of the tree; the
 * tools resolve them logically (paths.ts `resolveLinks`), refusing those that point outside.
 */

export const SnapshotManifest = z.object({
  sha: z.string(),
  /** path -> [size in bytes, mode]. */
  files: z.record(z.string(), z.tuple([z.number().int().min(0), z.number().int().min(0)])),
  /** path -> link target, as written in the tarball. */
  links: z.record(z.string(), z.string()),
  /** Entries left out of the tree, with why (hard links, devices, unsafe paths). */
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  /** Sum of the files' sizes: what the snapshot costs in `/tmp`. */
  bytes: z.number().int().min(0),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;

export type SnapshotEntry =
  | { type: 'file'; size: number; executable: boolean }
  | { type: 'directory' }
  | { type: 'link'; target: string };

export class Snapshot {
  readonly sha: string;
  private readonly directories = new Set<string>(['']);

  constructor(
    readonly treeDir: string,
    readonly manifest: SnapshotManifest,
  ) {
    this.sha = manifest.sha;
    for (const path of [...Object.keys(manifest.files), ...Object.keys(manifest.links)]) {
      for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
        this.directories.add(path.slice(0, slash));
      }
    }
  }

  /** What is at `path` (a normalised path), links not followed. */
  entry(path: string): SnapshotEntry | undefined {
    const file = Object.hasOwn(this.manifest.files, path) ? this.manifest.files[path] : undefined;
    if (file !== undefined) return { type: 'file', size: file[0], executable: (file[1] & 0o111) !== 0 };
    const target = Object.hasOwn(this.manifest.links, path) ? this.manifest.links[path] : undefined;
    if (target !== undefined) return { type: 'link', target };
    return this.directories.has(path) ? { type: 'directory' } : undefined;
  }

  /** `path` with every symbolic link on it followed; throws `PathRefusedError` for one that leads out. */
  resolve(path: string): string {
    return resolveLinks(path, (candidate) =>
      Object.hasOwn(this.manifest.links, candidate) ? this.manifest.links[candidate] : undefined,
    );
  }

  /** Every regular file, sorted by path. */
  files(): Array<{ path: string; size: number }> {
    return Object.entries(this.manifest.files)
      .map(([path, [size]]) => ({ path, size }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Every symbolic link, sorted by path. */
  links(): Array<{ path: string; target: string }> {
    return Object.entries(this.manifest.links)
      .map(([path, target]) => ({ path, target }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Where a regular file of the manifest is on disk. */
  absolutePath(path: string): string {
    return join(this.treeDir, ...path.split('/'));
  }
}
