/**
 * Code tools benchmark: latency of list_files, read_file, search_code (literal and regular
 * expression), write_file and a read after a write, each through the real Octokit against the
 * sandbox's GitHub emulator (real git repositories on disk), and the tarball cache's paths:
 * miss (download and unpack), hit in memory, hit on disk (a new instance in the same /tmp).
 * Prints figures; it is not a test and asserts nothing. Run: `npm run bench:code-tools`.
 *
 * The figures are for this machine and the emulator on localhost: GitHub's own latency (tens
 * to hundreds of milliseconds per call) comes on top in AWS, per GitHub call a tool makes.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitHubClient, downloadTarball } from '../lambdas/adapters/github.ts';
import { CodeToolsConfig } from '../lambdas/tools/code/config.ts';
import { runCodeTool } from '../lambdas/tools/code/run-code-tool.ts';
import { TarballCache } from '../lambdas/tools/code/tarball-cache.ts';
import type { CodeToolDeps } from '../lambdas/tools/code/workspace.ts';
import { startGitHubEmulator } from '../local/github/emulator.ts';
import { readBody } from '../local/read-body.ts';
import '../local/polyfills.ts';

const FILES = 400;
const CALLS = 300;
const WRITES = 100;
const MISSES = 30;

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** A TypeScript-looking repository: `FILES` modules of about 2 KB in nested folders. */
function repositoryFiles(): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# Bench\n', 'package.json': '{ "name": "bench" }\n' };
  for (let i = 0; i < FILES; i++) {
    const lines = [`// module ${i}`, `import { helper } from '../shared/helper.ts';`, ''];
    for (let f = 0; f < 12; f++) {
      lines.push(`export function compute${i}_${f}(value: number): number {`);
      lines.push(`  const scaled = helper(value) * ${f + 1};`);
      lines.push(`  return scaled > ${i * 10} ? scaled - ${f} : scaled + ${i};`);
      lines.push('}');
    }
    files[`src/area${i % 8}/part${i % 5}/module${i}.ts`] = `${lines.join('\n')}\n`;
  }
  return files;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const rows: string[][] = [];
async function measure(name: string, count: number, run: (i: number) => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  rows.push([
    name,
    String(count),
    percentile(times, 50).toFixed(2),
    percentile(times, 99).toFixed(2),
    mean.toFixed(2),
  ]);
  console.log(`  ${name}: done`);
}

async function main() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  let serve:
    | ((
        req: import('node:http').IncomingMessage,
        res: import('node:http').ServerResponse,
        body: string,
      ) => Promise<void>)
    | undefined;
  const server = createServer((req, res) => {
    void readBody(req).then((body) => serve?.(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const emulator = await startGitHubEmulator({ baseUrl: url, app: { publicKeyPem: publicKey } });
  serve = (req, res, body) => emulator.serve(req, res, body);
  await emulator.store.createRepository({ owner: 'bench', name: 'repo', files: repositoryFiles() });

  const cacheRoot = mkdtempSync(join(tmpdir(), 'bench-code-tools-'));
  const credentials = { appId: '1', privateKey, installationId: '1' };
  const octokit = createGitHubClient({ baseUrl: emulator.apiUrl, credentials, log: quiet });
  let caches = 0;
  const depsFor = (dir = join(cacheRoot, String(++caches))): CodeToolDeps => {
    const config = CodeToolsConfig.parse({
      repository: 'bench/repo',
      githubBaseUrl: emulator.apiUrl,
      cacheDir: dir,
    });
    return {
      octokit,
      repository: config.repository,
      config,
      defaultBranchMemo: {},
      commitTrees: new Map(),
      cache: new TarballCache({
        root: dir,
        maxBytes: config.cacheMaxMb * 1024 * 1024,
        maxTarballBytes: config.tarballMaxMb * 1024 * 1024,
        download: (sha) => downloadTarball(octokit, config.repository, sha),
      }),
    };
  };
  const deps = depsFor();
  // GitHub requests per tool call (what each call costs in round trips to GitHub in AWS), and
  // the time spent waiting on them, so the tools' own time shows apart from the emulator's.
  let requests = 0;
  let githubMs = 0;
  octokit.hook.wrap('request', async (request, options) => {
    requests += 1;
    const started = performance.now();
    try {
      return await request(options);
    } finally {
      githubMs += performance.now() - started;
    }
  });
  const perCall = new Map<string, Array<{ requests: number; ownMs: number }>>();
  const call = async (tool: string, args: unknown, conversationId = 'bench-read') => {
    const [beforeRequests, beforeMs, started] = [requests, githubMs, performance.now()];
    const result = await runCodeTool({ tool, args, conversationId }, deps);
    if (!result.ok) throw new Error(`${tool} failed: ${result.error}`);
    const key = `${tool}${conversationId === 'bench-read' ? ' (no work branch yet)' : ' (on the work branch)'}`;
    const ownMs = performance.now() - started - (githubMs - beforeMs);
    perCall.set(key, [...(perCall.get(key) ?? []), { requests: requests - beforeRequests, ownMs }]);
    return result.output;
  };

  console.log(`code tools benchmark: ${FILES + 2} files, emulator at ${emulator.apiUrl}`);
  await call('list_files', {}); // warm: token, default branch, first tarball

  await measure('list_files (whole repository, capped listing)', CALLS, () => call('list_files', {}));
  await measure('read_file (one 2 KB module)', CALLS, (i) =>
    call('read_file', { path: `src/area${i % 8}/part${i % 5}/module${i % FILES}.ts` }),
  );
  await measure('search_code literal (all files)', CALLS, (i) =>
    call('search_code', { pattern: `compute${i % FILES}_3` }),
  );
  await measure('search_code regex (all files, RE2)', CALLS, (i) =>
    call('search_code', { pattern: `scaled > ${i % FILES}0\\b`, regex: true }),
  );
  await measure('write_file (one commit: blob, tree, commit, ref)', WRITES, (i) =>
    call('write_file', { path: `src/area0/part0/module0.ts`, content: `// revision ${i}\n` }, 'bench-write'),
  );
  await measure('read_file right after a write (derived tree)', WRITES, async (i) => {
    await call('write_file', { path: 'notes.md', content: `note ${i}\n` }, 'bench-read-after-write');
    const started = performance.now();
    await call('read_file', { path: 'notes.md' }, 'bench-read-after-write');
    return performance.now() - started;
  });
  rows.at(-1)?.splice(0, 1, 'write_file + read_file after it (pair)');

  const { data: ref } = await octokit.rest.git.getRef({ owner: 'bench', repo: 'repo', ref: 'heads/main' });
  const sha = ref.object.sha;
  await measure('tarball cache miss (download + safe unpack)', MISSES, async () => {
    const fresh = depsFor();
    await fresh.cache.snapshot(sha);
  });
  const warm = depsFor();
  await warm.cache.snapshot(sha);
  await measure('tarball cache hit (memory)', CALLS, () => warm.cache.snapshot(sha));
  await measure('tarball cache hit (disk, new instance)', MISSES, async () => {
    const again = depsFor(warm.config.cacheDir);
    await again.cache.snapshot(sha);
  });
  const parent = await warm.cache.snapshot(sha);
  await measure(
    `tarball cache derive after a write (hard links, ${parent.files().length} files)`,
    MISSES,
    (i) =>
      warm.cache.derive(sha, (i + 1).toString(16).padStart(40, 'f'), {
        path: 'src/area0/part0/module0.ts',
        content: new TextEncoder().encode(`// ${i}\n`),
      }),
  );
  const { data: tarball } = await octokit.rest.repos.downloadTarballArchive({
    owner: 'bench',
    repo: 'repo',
    ref: sha,
  });
  console.log(`\ntarball: ${((tarball as ArrayBuffer).byteLength / 1024).toFixed(0)} KB gzipped`);
  console.log(`cache stats of the tools' instance: ${JSON.stringify(deps.cache.stats)}`);
  console.log('Per call (warm: token and default branch known): GitHub requests, and the time outside them');
  for (const [key, calls] of perCall) {
    const counts = calls.map((c) => c.requests).sort((a, b) => a - b);
    const own = calls.map((c) => c.ownMs).sort((a, b) => a - b);
    console.log(
      `  ${key}: ${percentile(counts, 50)} requests (max ${counts.at(-1)}); own time p50 ${percentile(own, 50).toFixed(2)} ms, p99 ${percentile(own, 99).toFixed(2)} ms`,
    );
  }
  console.log('');

  const header = ['measure', 'n', 'p50 ms', 'p99 ms', 'mean ms'];
  const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => (r[k] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, k) => (k === 0 ? c.padEnd(widths[k] ?? 0) : c.padStart(widths[k] ?? 0))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));

  await emulator.close();
  server.closeAllConnections();
  server.close();
  rmSync(cacheRoot, { recursive: true, force: true });
}

await main();
