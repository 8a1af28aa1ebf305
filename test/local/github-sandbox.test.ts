import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Octokit } from '@octokit/rest';
import { verify } from '@octokit/webhooks-methods';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { type SandboxGitHub, startSandboxGitHub } from '../../local/github/sandbox-github.ts';
import { readBody } from '../../local/read-body.ts';

/** The demo repository's files, which the sandbox seeds (found from this file, not imported: the seeder keeps its own). */
const DEMO_WEBSHOP_DIR = fileURLToPath(new URL('../../local/github/demo-webshop/', import.meta.url));

const run = promisify(execFile);
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
let server: Server;
let url: string;
let github: SandboxGitHub;
let octokit: Octokit;
const events: { headers: Record<string, unknown>; body: string }[] = [];
const scratch: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/github/events') {
        events.push({ headers: req.headers, body });
        return void res.writeHead(200).end();
      }
      if (github.handles(path)) return github.serve(req, res, body);
      res.writeHead(404).end();
    });
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  github = await startSandboxGitHub({ baseUrl: url });
  octokit = new Octokit({ baseUrl: github.apiUrl, log: quiet, auth: github.createUserToken('demo-dev') });
});
afterAll(async () => {
  await github.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

const post = (path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

/** The branch's tarball, unpacked into a fresh directory: a clean checkout, as a build gets. */
async function checkout(ref: string): Promise<string> {
  const { data } = await octokit.rest.repos.downloadTarballArchive({ owner: 'demo', repo: 'webshop', ref });
  const dir = await mkdtemp(join(tmpdir(), 'webshop-'));
  scratch.push(dir);
  const archive = join(dir, 'archive.tar.gz');
  await writeFile(archive, Buffer.from(data as ArrayBuffer));
  await tar.x({ file: archive, cwd: dir, strip: 1 });
  await rm(archive);
  return dir;
}

/** The demo's own test command, with this project's tools on the PATH as the emulated build has them. */
async function demoTests(dir: string): Promise<{ code: number; output: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(process.cwd(), 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
  };
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  try {
    const { stdout } = await run('sh', ['-c', 'tsx --test test/*.test.ts'], {
      cwd: dir,
      env,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const e = error as { code?: number; stdout?: string };
    return { code: e.code ?? -1, output: e.stdout ?? '' };
  }
}

describe('the sandbox GitHub: the demo repository', () => {
  it('creates demo/webshop with one commit on main and without the bug notes', async () => {
    const { data: repo } = await octokit.rest.repos.get({ owner: 'demo', repo: 'webshop' });
    expect(repo).toMatchObject({ default_branch: 'main', private: true, permissions: { push: true } });
    const { data: commits } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: 'demo',
      repo: 'webshop',
      basehead: 'main...main',
    });
    expect(commits.status).toBe('identical');
    const { data: main } = await octokit.rest.git.getCommit({
      owner: 'demo',
      repo: 'webshop',
      commit_sha: commits.base_commit.sha,
    });
    expect(main.parents).toEqual([]);
    const { data: tree } = await octokit.rest.git.getTree({
      owner: 'demo',
      repo: 'webshop',
      tree_sha: main.tree.sha,
      recursive: '1',
    });
    const paths = tree.tree.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining(['package.json', 'src/checkout.ts', 'test/checkout.test.ts']),
    );
    expect(paths).not.toContain('BUG.md');
  });

  it('has the planted bug where BUG.md says', async () => {
    const lines = (await readFile(join(DEMO_WEBSHOP_DIR, DEMO_BUG.file), 'utf8')).split('\n');
    expect(lines[DEMO_BUG.line - 1]).toContain('vatFor(subtotal, options.region)');
    expect(await readFile(join(DEMO_WEBSHOP_DIR, 'BUG.md'), 'utf8')).toContain(
      `${DEMO_BUG.file}:${DEMO_BUG.line}`,
    );
  });

  it('fails exactly one test in a clean checkout of main, and none once a fix is committed on a branch', async () => {
    const before = await demoTests(await checkout('main'));
    expect(before.code).toBe(1);
    expect(before.output).toMatch(/^# fail 1$/m);
    expect(before.output).toMatch(/not ok \d+ - charges VAT on the discounted amount/);

    const { data: file } = await octokit.rest.repos.getContent({
      owner: 'demo',
      repo: 'webshop',
      path: DEMO_BUG.file,
    });
    const source = Buffer.from('content' in file ? String(file.content) : '', 'base64').toString('utf8');
    const fixed = source.replace('vatFor(subtotal, options.region)', 'vatFor(net, options.region)');
    const { data: ref } = await octokit.rest.git.getRef({
      owner: 'demo',
      repo: 'webshop',
      ref: 'heads/main',
    });
    const { data: parent } = await octokit.rest.git.getCommit({
      owner: 'demo',
      repo: 'webshop',
      commit_sha: ref.object.sha,
    });
    const { data: tree } = await octokit.rest.git.createTree({
      owner: 'demo',
      repo: 'webshop',
      base_tree: parent.tree.sha,
      tree: [{ path: DEMO_BUG.file, mode: '100644', type: 'blob', content: fixed }],
    });
    const { data: commit } = await octokit.rest.git.createCommit({
      owner: 'demo',
      repo: 'webshop',
      message: 'VAT on the discounted amount',
      tree: tree.sha,
      parents: [ref.object.sha],
    });
    await octokit.rest.git.createRef({
      owner: 'demo',
      repo: 'webshop',
      ref: 'refs/heads/agents/bug-demo',
      sha: commit.sha,
    });

    const after = await demoTests(await checkout('agents/bug-demo'));
    expect(after.output).toMatch(/^# fail 0$/m);
    expect(after.code).toBe(0);
  });
});

describe('the sandbox GitHub: endpoints for people and tests', () => {
  it('opens, comments on and labels an issue as a user, each delivered signed to /github/events', async () => {
    const from = events.length;
    const opened = await post('/sandbox/github/issues', {
      repo: 'demo/webshop',
      title: 'Totals too high with SAVE10',
      body: 'VAT looks off',
      user: 'customer',
    });
    expect(opened.status).toBe(201);
    const { number, html_url: htmlUrl } = (await opened.json()) as { number: number; html_url: string };
    expect(
      (
        await post('/sandbox/github/comments', {
          repo: 'demo/webshop',
          issue: number,
          body: 'Same here',
          user: 'other',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await post('/sandbox/github/labels', {
          repo: 'demo/webshop',
          issue: number,
          labels: ['agent'],
          user: 'demo-dev',
        })
      ).status,
    ).toBe(200);
    const arrived = events.slice(from);
    expect(
      arrived.map(
        (e) => `${e.headers['x-github-event']}.${(JSON.parse(e.body) as { action: string }).action}`,
      ),
    ).toEqual(['issues.opened', 'issue_comment.created', 'issues.labeled']);
    for (const e of arrived)
      expect(await verify(github.webhookSecret, e.body, String(e.headers['x-hub-signature-256']))).toBe(true);
    const page = (await (await fetch(htmlUrl)).json()) as {
      issue: { title: string; labels: { name: string }[] };
      comments: { body: string }[];
    };
    expect(page.issue.title).toBe('Totals too high with SAVE10');
    expect(page.issue.labels.map((l) => l.name)).toEqual(['agent']);
    expect(page.comments.map((c) => c.body)).toEqual(['Same here']);
  });

  it('lists deliveries with the receiver status', async () => {
    const response = await fetch(`${url}/sandbox/github/deliveries`);
    const { deliveries } = (await response.json()) as {
      deliveries: { event: string; status: number; payload?: unknown }[];
    };
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((d) => d.status === 200 && d.payload === undefined)).toBe(true);
  });

  it('shows a repository’s branches, commits, pull requests and issues', async () => {
    await octokit.rest.pulls.create({
      owner: 'demo',
      repo: 'webshop',
      head: 'agents/bug-demo',
      base: 'main',
      title: 'Fix VAT',
      draft: true,
    });
    const view = (await (await fetch(`${url}/sandbox/github/repos/demo/webshop`)).json()) as {
      branches: { name: string; ahead_by: number; commits: { message: string }[] }[];
      commits: unknown[];
      pulls: { title: string; draft: boolean; head: string }[];
      issues: { title: string }[];
    };
    expect(view.branches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'main', ahead_by: 0 }),
        expect.objectContaining({
          name: 'agents/bug-demo',
          ahead_by: 1,
          commits: [expect.objectContaining({ message: 'VAT on the discounted amount' })],
        }),
      ]),
    );
    expect(view.commits).toHaveLength(1);
    expect(view.pulls).toEqual([
      expect.objectContaining({ title: 'Fix VAT', draft: true, head: 'agents/bug-demo' }),
    ]);
    expect(view.issues.map((i) => i.title)).toContain('Totals too high with SAVE10');
  });

  it('reviews a pull request as a user, delivering pull_request_review', async () => {
    const { data: pulls } = await octokit.rest.pulls.list({
      owner: 'demo',
      repo: 'webshop',
      head: 'demo:agents/bug-demo',
    });
    const from = events.length;
    const reviewed = await post('/sandbox/github/reviews', {
      repo: 'demo/webshop',
      pull: pulls[0]?.number,
      event: 'APPROVE',
      user: 'demo-maintainer',
    });
    expect(reviewed.status).toBe(200);
    expect(await reviewed.json()).toMatchObject({ state: 'APPROVED' });
    expect(events.slice(from).map((e) => e.headers['x-github-event'])).toEqual(['pull_request_review']);
  });

  it('answers bad input with a clear error and changes nothing', async () => {
    const count = github.store.repository('demo', 'webshop')?.issues.size;
    const missing = await post('/sandbox/github/issues', { repo: 'demo/webshop' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toContain('title');
    expect((await post('/sandbox/github/issues', { repo: 'demo/nope', title: 'x' })).status).toBe(404);
    expect(
      (await post('/sandbox/github/comments', { repo: 'demo/webshop', issue: 999, body: 'x' })).status,
    ).toBe(404);
    const notJson = await fetch(`${url}/sandbox/github/labels`, { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
    expect(github.store.repository('demo', 'webshop')?.issues.size).toBe(count);
  });

  it('sets who may write to a repository', async () => {
    expect(
      (
        await post('/sandbox/github/collaborators', {
          repo: 'demo/webshop',
          user: 'newdev',
          permission: 'write',
        })
      ).status,
    ).toBe(200);
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: 'demo',
      repo: 'webshop',
      username: 'newdev',
    });
    expect(data.permission).toBe('write');
  });
});
