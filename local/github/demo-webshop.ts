import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GitHubStore, RepoRecord } from './store.ts';

/** The demo project's files, kept in this repository (type-checked and linted with it). */
export const DEMO_WEBSHOP_DIR = fileURLToPath(new URL('./demo-webshop/', import.meta.url));
export const DEMO_OWNER = 'demo';
export const DEMO_REPO = 'webshop';
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
