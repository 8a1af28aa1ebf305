import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { type GitHubEmulator, startGitHubEmulator } from '../../local/github/emulator.ts';
import { readBody } from '../../local/read-body.ts';

/** What the GitHub emulator is started with. */
type GitHubEmulatorOptions = Parameters<typeof startGitHubEmulator>[0];

export interface TestGitHub {
  emulator: GitHubEmulator;
  url: string;
  /** The App's installation, authenticated through `@octokit/auth-app` with a key pair made for this run. */
  octokit: Octokit;
  /** A client with a personal token of `login`. */
  as(login: string): Octokit;
  anonymous: Octokit;
  close(): Promise<void>;
}

/** The emulator alone on a port of its own, with the real Octokit clients pointed at it. */
export async function startTestGitHub(options: Partial<GitHubEmulatorOptions> = {}): Promise<TestGitHub> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  let emulator: GitHubEmulator | undefined;
  const server: Server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (emulator?.handles(path)) return emulator.serve(req, res, body);
      res.writeHead(404).end();
    });
  });
  // Schema compilation can hold the event loop for seconds; a server closing idle keep-alive
  // sockets meanwhile races the client reusing them (ECONNRESET), so idle sockets stay open.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  emulator = await startGitHubEmulator({ baseUrl: url, app: { publicKeyPem: publicKey }, ...options });
  const baseUrl = emulator.apiUrl;
  const started = emulator;
  return {
    emulator: started,
    url,
    octokit: new Octokit({
      baseUrl,
      log: quiet,
      authStrategy: createAppAuth,
      auth: { appId: 1, privateKey, installationId: 1 },
    }),
    as: (login) => new Octokit({ baseUrl, log: quiet, auth: started.createUserToken(login) }),
    anonymous: new Octokit({ baseUrl, log: quiet }),
    async close() {
      await started.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The status and body of a call expected to fail (Octokit throws a RequestError). */
export async function failure(call: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; response?: { data?: unknown } };
    if (typeof e.status === 'number') return { status: e.status, data: e.response?.data };
    throw error;
  }
  throw new Error('the call succeeded');
}

/** Octokit logs every 4xx; the tests assert them instead. */
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A webhook receiver on a port of its own: records what arrives and answers `status`. */
export async function startReceiver(status = 200) {
  const received: ReceivedWebhook[] = [];
  const receiver = { received, status, url: '', close: async () => {} };
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      received.push({ headers: req.headers, body });
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/github/events`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
