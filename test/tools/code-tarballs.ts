import { gzipSync } from 'node:zlib';
import { Header } from 'tar';

/** An entry of a hand-made tarball: lets tests write what no honest archiver would (`../`, links out). */
export type RawEntry =
  | { type: 'File'; path: string; content: string | Uint8Array; mode?: number }
  | { type: 'Directory'; path: string }
  | { type: 'SymbolicLink' | 'Link'; path: string; linkpath: string };

/** A gzipped ustar archive of `entries`, in order, as GitHub serves a tarball. */
export function rawTarball(entries: readonly RawEntry[]): Uint8Array {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = entry.type === 'File' ? Buffer.from(entry.content) : Buffer.alloc(0);
    const header = new Header({
      path: entry.path,
      type: entry.type,
      size: body.length,
      mode: entry.type === 'File' ? (entry.mode ?? 0o644) : entry.type === 'Directory' ? 0o755 : 0o777,
      mtime: new Date(0),
      ...(entry.type === 'SymbolicLink' || entry.type === 'Link' ? { linkpath: entry.linkpath } : {}),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** A plain tarball of `files` under GitHub's `owner-repo-sha/` top directory. */
export function repoTarball(
  files: Record<string, string | Uint8Array>,
  top = 'demo-webshop-0123abc',
): Uint8Array {
  return rawTarball([
    { type: 'Directory', path: `${top}/` },
    ...Object.entries(files).map(([path, content]) => ({
      type: 'File' as const,
      path: `${top}/${path}`,
      content,
    })),
  ]);
}
