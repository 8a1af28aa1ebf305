import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { seedDemoWebshop, seedDemoWebshopCached } from './demo-webshop.ts';
import { type GitHubEmulator, startGitHubEmulator } from './emulator.ts';
import { createGitHubSandboxEndpoints } from './sandbox-endpoints.ts';
import type { SavedGitHub } from './saved-store.ts';

export interface SandboxGitHub extends GitHubEmulator {
  /** Signs every webhook (`X-Hub-Signature-256`); the ingress checks it. */
  readonly webhookSecret: string;
}

const SANDBOX_PREFIX = '/sandbox/github/';

/**
 * The sandbox's GitHub: the emulator on the sandbox's port, its webhooks sent to the sandbox's
 * own `/github/events`, the `/sandbox/github/...` endpoints, and the demo repository
 * `demo/webshop` (one commit on `main`), or, in a sandbox that keeps its state, the records
 * it saved with their repositories.
 */
export async function startSandboxGitHub(options: {
  baseUrl: string;
  webhookSecret?: string | undefined;
  /**
   * Where the seeded demo repository is kept for later GitHubs to copy instead of committing it
   * anew (a reusable sandbox builds one per user). @default none: committed every time
   */
  seedCache?: string;
  /** Where the bare repositories are kept. @default a fresh temporary directory, removed on close */
  root?: string | undefined;
  /** Records saved by an earlier GitHub on the same `root`, taken back instead of seeding the demo. */
  saved?: SavedGitHub | undefined;
}): Promise<SandboxGitHub> {
  const webhookSecret = options.webhookSecret || randomBytes(32).toString('hex');
  const emulator = await startGitHubEmulator({
    baseUrl: options.baseUrl,
    webhookUrl: `${options.baseUrl}/github/events`,
    webhookSecret,
    ...(options.root === undefined ? {} : { root: options.root }),
  });
  try {
    if (options.root !== undefined) await removeUnsavedRepositories(options.root, options.saved);
    if (options.saved) emulator.store.takeBack(options.saved);
    else if (options.seedCache) await seedDemoWebshopCached(emulator.store, options.seedCache);
    else await seedDemoWebshop(emulator.store);
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const endpoints = createGitHubSandboxEndpoints(emulator);
  return {
    ...emulator,
    webhookSecret,
    handles: (path: string) => emulator.handles(path) || path.startsWith(SANDBOX_PREFIX),
    serve(req: IncomingMessage, res: ServerResponse, body: string) {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      return path.startsWith(SANDBOX_PREFIX) ? endpoints(req, res, body) : emulator.serve(req, res, body);
    },
  };
}

/**
 * Removes the bare repositories in `root` that no saved record names: written after the last
 * save by a sandbox that then ended without saving, they belong to no repository any more.
 */
async function removeUnsavedRepositories(root: string, saved: SavedGitHub | undefined): Promise<void> {
  const named = new Set(saved?.repos.map((repo) => repo.gitDir));
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name.endsWith('.git') && !named.has(entry.name))
      await rm(join(root, entry.name), { recursive: true, force: true });
  }
}
