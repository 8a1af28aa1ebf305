import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TarballTooLargeError } from '../../lambdas/tools/code/errors.ts';
import { TarballCache } from '../../lambdas/tools/code/tarball-cache.ts';
import { rawTarball, repoTarball } from './code-tarballs.ts';

const base = mkdtempSync(join(tmpdir(), 'tarball-cache-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const sha = (n: number) => n.toString(16).padStart(40, '0');
let dirs = 0;

function cacheOf(
  tarballs: Map<string, Uint8Array>,
  options: { maxBytes?: number; maxTarballBytes?: number } = {},
) {
  const downloads: string[] = [];
  const root = join(base, `cache-${++dirs}`);
  const cache = new TarballCache({
    root,
    maxBytes: options.maxBytes ?? 1_000_000,
    maxTarballBytes: options.maxTarballBytes ?? 1_000_000,
    download: async (commit) => {
      downloads.push(commit);
      const tarball = tarballs.get(commit);
      if (tarball === undefined) throw new Error(`no tarball for ${commit}`);
      return tarball;
    },
  });
  return { cache, downloads, root };
}

describe('TarballCache', () => {
  it('unpacks a tarball without its top directory and lists its files', async () => {
    const { cache } = cacheOf(
      new Map([[sha(1), repoTarball({ 'README.md': '# hi\n', 'src/cart.ts': 'x\n' })]]),
    );
    const snapshot = await cache.snapshot(sha(1));
    expect(snapshot.files()).toEqual([
      { path: 'README.md', size: 5 },
      { path: 'src/cart.ts', size: 2 },
    ]);
    expect(readFileSync(snapshot.absolutePath('src/cart.ts'), 'utf8')).toBe('x\n');
    expect(snapshot.entry('src')).toEqual({ type: 'directory' });
  });

  it('downloads a sha once and serves it from memory after that', async () => {
    const { cache, downloads } = cacheOf(new Map([[sha(1), repoTarball({ 'a.txt': 'a' })]]));
    await Promise.all([cache.snapshot(sha(1)), cache.snapshot(sha(1))]);
    await cache.snapshot(sha(1));
    expect(downloads).toEqual([sha(1)]);
    expect(cache.stats).toMatchObject({ misses: 1, hits: 1 });
  });

  it('finds a tree another instance unpacked in the same /tmp without downloading it again', async () => {
    const tarballs = new Map([[sha(1), repoTarball({ 'a.txt': 'a' })]]);
    const first = cacheOf(tarballs);
    await first.cache.snapshot(sha(1));
    const second = new TarballCache({
      root: first.root,
      maxBytes: 1_000_000,
      maxTarballBytes: 1_000_000,
      download: async () => {
        throw new Error('downloaded again');
      },
    });
    expect((await second.snapshot(sha(1))).files()).toEqual([{ path: 'a.txt', size: 1 }]);
  });

  it('evicts the least recently used tree when the cap is passed', async () => {
    const tarballs = new Map([
      [sha(1), repoTarball({ 'a.txt': 'a'.repeat(600) })],
      [sha(2), repoTarball({ 'b.txt': 'b'.repeat(600) })],
      [sha(3), repoTarball({ 'c.txt': 'c'.repeat(600) })],
    ]);
    const { cache, root, downloads } = cacheOf(tarballs, { maxBytes: 1_300 });
    await cache.snapshot(sha(1));
    await cache.snapshot(sha(2));
    await cache.snapshot(sha(1)); // sha 1 is now the more recently used
    await cache.snapshot(sha(3));
    expect(readdirSync(root).sort()).toEqual([sha(1), sha(3)]);
    expect(cache.stats.evictions).toBe(1);
    await cache.snapshot(sha(2));
    expect(downloads).toEqual([sha(1), sha(2), sha(3), sha(2)]);
  });

  it('refuses a tarball over the size limit and keeps nothing of it', async () => {
    const { cache, root } = cacheOf(
      new Map([[sha(1), repoTarball({ 'big.bin': new Uint8Array(50_000).fill(7) })]]),
      {
        maxTarballBytes: 10,
      },
    );
    await expect(cache.snapshot(sha(1))).rejects.toThrow(TarballTooLargeError);
    expect(existsSync(join(root, sha(1)))).toBe(false);
  });

  it('refuses a ref that is not a commit sha (it would name a directory)', async () => {
    const { cache } = cacheOf(new Map());
    await expect(cache.snapshot('../../etc')).rejects.toThrow(/not a commit sha/);
  });

  it('writes no entry outside its tree, no link and no .git, whatever the archive holds', async () => {
    const outside = join(base, `outside-${Date.now()}`);
    const top = 'evil-repo-1';
    const tarball = rawTarball([
      { type: 'Directory', path: `${top}/` },
      { type: 'File', path: `${top}/ok.txt`, content: 'fine\n' },
      { type: 'File', path: `${top}/../escape.txt`, content: 'escaped\n' },
      { type: 'File', path: `${top}/a/../../../escape2.txt`, content: 'escaped\n' },
      { type: 'File', path: `/${outside}/absolute.txt`, content: 'escaped\n' },
      { type: 'File', path: `${top}/.git/config`, content: '[core]\n' },
      { type: 'SymbolicLink', path: `${top}/etc`, linkpath: '/etc' },
      { type: 'File', path: `${top}/etc/passwd-copy`, content: 'through the link\n' },
      { type: 'SymbolicLink', path: `${top}/docs`, linkpath: 'ok.txt' },
      { type: 'Link', path: `${top}/hard`, linkpath: '/etc/passwd' },
    ]);
    const { cache, root } = cacheOf(new Map([[sha(9), tarball]]));
    const snapshot = await cache.snapshot(sha(9));

    expect(existsSync(join(root, 'escape.txt'))).toBe(false);
    expect(existsSync(join(base, 'escape.txt'))).toBe(false);
    expect(existsSync(join(base, 'escape2.txt'))).toBe(false);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(snapshot.treeDir, '.git'))).toBe(false);
    expect(existsSync(join(snapshot.treeDir, 'hard'))).toBe(false);
    expect(snapshot.links()).toEqual([
      { path: 'docs', target: 'ok.txt' },
      { path: 'etc', target: '/etc' },
    ]);
    // The file behind the link-out is refused by path, whatever the disk holds.
    expect(() => snapshot.resolve('etc/passwd-copy')).toThrow(
      /symbolic link to \/etc, outside the repository/,
    );
    expect(snapshot.resolve('docs')).toBe('ok.txt');
    expect(snapshot.manifest.skipped.map((s) => s.reason).join('\n')).toMatch(/\.git directory/);
  });

  it('derives a child tree from its parent and one change, without a download', async () => {
    const { cache, downloads } = cacheOf(
      new Map([[sha(1), repoTarball({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' })]]),
    );
    const parent = await cache.snapshot(sha(1));
    await cache.derive(sha(1), sha(2), { path: 'src/b.txt', content: new TextEncoder().encode('B!\n') });
    await cache.derive(sha(2), sha(3), { path: 'a.txt' });
    const written = await cache.snapshot(sha(2));
    const deleted = await cache.snapshot(sha(3));
    expect(readFileSync(written.absolutePath('src/b.txt'), 'utf8')).toBe('B!\n');
    expect(readFileSync(parent.absolutePath('src/b.txt'), 'utf8')).toBe('b\n');
    expect(deleted.files()).toEqual([{ path: 'src/b.txt', size: 3 }]);
    expect(downloads).toEqual([sha(1)]);
    expect(cache.stats.derived).toBe(2);
  });

  it('does not derive from a parent it does not hold, nor a change to .gitattributes', async () => {
    const { cache } = cacheOf(new Map([[sha(1), repoTarball({ 'a.txt': 'a\n' })]]));
    await cache.derive(sha(7), sha(8), { path: 'a.txt', content: new Uint8Array([1]) });
    await cache.snapshot(sha(1));
    await cache.derive(sha(1), sha(2), {
      path: '.gitattributes',
      content: new TextEncoder().encode('* export-ignore\n'),
    });
    expect(cache.stats.derived).toBe(0);
  });
});
