import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Octokit } from '@octokit/rest';
import type * as z from 'zod';
import {
  createGitHubClient,
  downloadTarball,
  type GitHubCredentials,
} from '../../lambdas/adapters/github.ts';
import { CodeToolsConfig } from '../../lambdas/tools/code/config.ts';
import { runCodeTool } from '../../lambdas/tools/code/run-code-tool.ts';
import { TarballCache } from '../../lambdas/tools/code/tarball-cache.ts';
import type { CodeToolDeps } from '../../lambdas/tools/code/workspace.ts';
import type { ToolResult } from '../../lambdas/tools/invocation.ts';
import { startTestGitHub, type TestGitHub } from '../local/github-harness.ts';

/** The demo repository's files on `main`, as the code tools' tests find them. */
export const CART_TS = [
  "import type { Item } from './item.ts';",
  '',
  'export function total(items: Item[]): number {',
  '  let sum = 0;',
  '  for (const item of items) sum += item.price;',
  '  return sum;',
  '}',
  '',
].join('\n');

export const BASE_FILES: Record<string, string | Buffer> = {
  'README.md': '# Webshop\n\nA small shop.\n',
  'src/cart.ts': CART_TS,
  'src/item.ts': 'export interface Item {\n  price: number;\n  quantity: number;\n}\n',
  'test/cart.test.ts':
    "import { total } from '../src/cart.ts';\n// total([{ price: 2, quantity: 3 }]) should be 6\n",
  'assets/logo.png': Buffer.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
  ]),
  'data/huge.json': `[${'1,'.repeat(6_000)}1]\n`,
  'evil/backtrack.txt': `${'a'.repeat(20_000)}b\n`,
};

/** Max file size the tests configure: `data/huge.json` (12 KB) is over it. */
export const TEST_MAX_FILE_BYTES = 8_192;

export interface CodeToolsWorld {
  gh: TestGitHub;
  /** An Octokit authenticated as the App installation (the emulator trusts this run's key). */
  admin: Octokit;
  owner: string;
  repo: string;
  /** Key pair of the App the emulator trusts, made for this run. */
  privateKey: string;
  deps: (
    overrides?: Partial<z.input<typeof CodeToolsConfig>>,
    credentials?: GitHubCredentials,
  ) => CodeToolDeps;
  call: (tool: string, args: unknown, conversationId: string, deps?: CodeToolDeps) => Promise<ToolResult>;
  head: (branch: string) => Promise<string | undefined>;
  branches: () => Promise<string[]>;
  close: () => Promise<void>;
}

/**
 * The GitHub emulator with a repository `demo/webshop` (the files above, plus symbolic links
 * committed through the Git Data API), and the code tools' dependencies built as the handler
 * builds them: the real Octokit, authenticated as the App installation.
 */
export async function startCodeToolsWorld(name = 'webshop'): Promise<CodeToolsWorld> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const gh = await startTestGitHub({ app: { publicKeyPem: publicKey } });
  const owner = 'demo';
  await gh.emulator.store.createRepository({ owner, name, files: BASE_FILES });
  const app: GitHubCredentials = { appId: '1', privateKey, installationId: '1' };
  const admin = createGitHubClient({ baseUrl: gh.emulator.apiUrl, credentials: app, log: quiet });
  await commitLinks(admin, owner, name, {
    'docs/readme-link.md': '../README.md',
    'docs/src': '../src',
    'escape-relative': '../../../etc/passwd',
    'escape-absolute': '/etc/passwd',
    'escape-dir': '../..',
  });
  const cacheRoot = mkdtempSync(join(tmpdir(), 'code-tools-cache-'));
  let caches = 0;
  const deps: CodeToolsWorld['deps'] = (overrides = {}, credentials = app) => {
    const config = CodeToolsConfig.parse({
      repository: `${owner}/${name}`,
      githubBaseUrl: gh.emulator.apiUrl,
      cacheDir: join(cacheRoot, String(++caches)),
      maxFileBytes: TEST_MAX_FILE_BYTES,
      ...overrides,
    });
    const octokit = createGitHubClient({ baseUrl: gh.emulator.apiUrl, credentials, log: quiet });
    const repository = config.repository;
    return {
      octokit,
      repository,
      config,
      defaultBranchMemo: {},
      commitTrees: new Map(),
      cache: new TarballCache({
        root: config.cacheDir,
        maxBytes: config.cacheMaxMb * 1024 * 1024,
        maxTarballBytes: config.tarballMaxMb * 1024 * 1024,
        download: (sha) => downloadTarball(octokit, repository, sha),
      }),
    };
  };
  const shared = deps();
  return {
    gh,
    admin,
    owner,
    repo: name,
    privateKey,
    deps,
    call: (tool, args, conversationId, with_ = shared) => runCodeTool({ tool, args, conversationId }, with_),
    head: async (branch) =>
      (await gh.emulator.store.repository(owner, name)?.git.ref(`refs/heads/${branch}`))?.sha,
    branches: async () =>
      ((await gh.emulator.store.repository(owner, name)?.git.refs()) ?? [])
        .map((r) => r.ref)
        .filter((r) => r.startsWith('refs/heads/'))
        .sort(),
    close: async () => {
      await gh.close();
      rmSync(cacheRoot, { recursive: true, force: true });
    },
  };
}

/** Commits symbolic links (mode 120000) on main through the Git Data API, as a push of links would. */
async function commitLinks(octokit: Octokit, owner: string, repo: string, links: Record<string, string>) {
  const { data: ref } = await octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' });
  const { data: parent } = await octokit.rest.git.getCommit({ owner, repo, commit_sha: ref.object.sha });
  const { data: tree } = await octokit.rest.git.createTree({
    owner,
    repo,
    base_tree: parent.tree.sha,
    tree: Object.entries(links).map(([path, target]) => ({
      path,
      mode: '120000' as const,
      type: 'blob' as const,
      content: target,
    })),
  });
  const { data: commit } = await octokit.rest.git.createCommit({
    owner,
    repo,
    message: 'Add links',
    tree: tree.sha,
    parents: [ref.object.sha],
  });
  await octokit.rest.git.updateRef({ owner, repo, ref: 'heads/main', sha: commit.sha });
}

export const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** The output of a call that must succeed. */
export function output(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected the tool to succeed, it answered: ${result.error}`);
  return result.output;
}

/** The error of a call that must be refused. */
export function refusal(result: ToolResult): string {
  if (result.ok) throw new Error(`expected the tool to refuse, it answered: ${result.output}`);
  return result.error;
}
