import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { seedDemoWebshop, seedDemoWebshopCached } from './demo-webshop.ts';
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
   * Where the seeded demo repository is kept for later GitHubs to copy instead of committing it
   * anew (a reusable sandbox builds one per user). @default none: committed every time
   */
  seedCache?: string;
}): Promise<SandboxGitHub> {
  const webhookSecret = options.webhookSecret || randomBytes(32).toString('hex');
  const emulator = await startGitHubEmulator({
    baseUrl: options.baseUrl,
    webhookUrl: `${options.baseUrl}/github/events`,
    webhookSecret,
  });
  try {
    if (options.seedCache) await seedDemoWebshopCached(emulator.store, options.seedCache);
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
