import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GitHubStore, RepoRecord } from './store.ts';

/** The demo project's files, kept in this repository (type-checked and linted with it). */
const DEMO_WEBSHOP_DIR = fileURLToPath(new URL('./demo-webshop/', import.meta.url));
const DEMO_OWNER = 'demo';
const DEMO_REPO = 'webshop';
/** Where the planted bug is, for tests that check findings cite it (see demo-webshop/BUG.md). */
export const DEMO_BUG = { file: 'src/checkout.ts', line: 44 } as const;
/** Documentation of the bug for us, not a file of the demo project. */
const LEFT_OUT = new Set(['BUG.md']);

/** Every file of the demo project, by its path in the repository. */
export async function demoWebshopFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') await walk(path);
        continue;
      }
      const name = relative(DEMO_WEBSHOP_DIR, path).split('\\').join('/');
      if (!LEFT_OUT.has(name)) files[name] = await readFile(path, 'utf8');
    }
  };
  await walk(DEMO_WEBSHOP_DIR);
  return files;
}

/**
 * Creates `demo/webshop`: private, one commit on `main`, `demo-dev` a collaborator with write access.
 * `copyOf`: the bare repository of an earlier seed, copied instead of committed anew (the same commit).
 */
export async function seedDemoWebshop(store: GitHubStore, copyOf?: string): Promise<RepoRecord> {
  return store.createRepository({
    ...(copyOf ? { copyOf } : {}),
    owner: DEMO_OWNER,
    name: DEMO_REPO,
    description: 'A small web shop: cart, prices, discounts and checkout totals (sandbox demo)',
    files: await demoWebshopFiles(),
    message: 'Web shop: cart, catalog, discounts, VAT and checkout totals, with tests',
    author: { name: 'Demo Maintainer', email: 'maintainer@webshop.invalid', date: '2026-01-05T09:00:00Z' },
    // The sandbox's default GitHub user (sandbox-endpoints.ts) is the one driving the demo: a maintainer.
    collaborators: { 'demo-dev': 'write', 'demo-maintainer': 'admin', 'sandbox-user': 'write' },
  });
}

/**
 * Seeds `demo/webshop` from the bare repository kept in `cacheDir` for these exact files (the
 * same commit, copied on disk: no git process), or commits it and keeps a copy there for the
 * next sandbox. The copy is named by a digest of the files, so an edited demo is seeded anew.
 */
export async function seedDemoWebshopCached(store: GitHubStore, cacheDir: string): Promise<RepoRecord> {
  const files = Object.entries(await demoWebshopFiles()).sort(([a], [b]) => a.localeCompare(b));
  const digest = createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16);
  const kept = join(cacheDir, `webshop-${digest}.git`);
  if (existsSync(join(kept, 'HEAD'))) return seedDemoWebshop(store, kept);
  const repo = await seedDemoWebshop(store);
  // Copied aside, then renamed: a sandbox never sees a half-written copy; the first rename wins.
  const partial = `${kept}.partial-${randomUUID()}`;
  await mkdir(cacheDir, { recursive: true });
  await cp(repo.git.gitDir, partial, { recursive: true });
  await rename(partial, kept).catch(() => rm(partial, { recursive: true, force: true }));
  return repo;
}
