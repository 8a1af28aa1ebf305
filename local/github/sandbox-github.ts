import { randomBytes } from 'node:crypto';
import { cp, mkdtemp } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemoWebshop } from './demo-webshop.ts';
import { type GitHubEmulator, startGitHubEmulator } from './emulator.ts';
import { createGitHubSandboxEndpoints } from './sandbox-endpoints.ts';

export interface SandboxGitHub extends GitHubEmulator {
  /** Signs every webhook (`X-Hub-Signature-256`); the ingress checks it. */
  readonly webhookSecret: string;
}

const SANDBOX_PREFIX = '/sandbox/github/';

/**
 * The sandbox's GitHub: the emulator on the sandbox's port, its webhooks sent to the sandbox's
 * own `/github/events`, the `/sandbox/github/...` endpoints, and the demo repository
 * `demo/webshop` (one commit on `main`).
 */
export async function startSandboxGitHub(options: {
  baseUrl: string;
  webhookSecret?: string | undefined;
  /**
   * Where a copy of the seeded demo repository is kept for the next GitHub of the same sandbox
   * (a reusable sandbox builds one per user): set by the first seed, copied by later ones.
   */
  seed?: { gitDir?: string };
}): Promise<SandboxGitHub> {
  const webhookSecret = options.webhookSecret || randomBytes(32).toString('hex');
  const emulator = await startGitHubEmulator({
    baseUrl: options.baseUrl,
    webhookUrl: `${options.baseUrl}/github/events`,
    webhookSecret,
  });
  try {
    const repo = await seedDemoWebshop(emulator.store, options.seed?.gitDir);
    if (options.seed && options.seed.gitDir === undefined) {
      const kept = join(await mkdtemp(join(tmpdir(), 'sandbox-github-seed-')), 'webshop.git');
      await cp(repo.git.gitDir, kept, { recursive: true });
      options.seed.gitDir = kept;
    }
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
