import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startTestGitHub, type TestGitHub } from './github-harness.ts';
import { assertMatchesSchema } from './github-openapi.ts';

const owner = 'acme';
const repo = 'app';
let gh: TestGitHub;
let mainSha: string;

beforeAll(async () => {
  gh = await startTestGitHub();
  const record = await gh.emulator.store.createRepository({
    owner,
    name: repo,
    files: {
      'README.md': '# app\n',
      'src/a.ts': 'export const a = 1;\n',
      'src/deep/b.ts': 'export const b = 2;\n',
    },
    collaborators: { reader: 'read', dev: 'write' },
  });
  mainSha = (await record.git.resolveCommit('main')) ?? '';
});
afterAll(() => gh.close());

/** One commit on top of `parent` changing `files` (null deletes), through the Git Data API. */
async function commitOnTop(parent: string, files: Record<string, string | null>, message: string) {
  const { data: parentCommit } = await gh.octokit.rest.git.getCommit({ owner, repo, commit_sha: parent });
  const { data: tree } = await gh.octokit.rest.git.createTree({
    owner,
    repo,
    base_tree: parentCommit.tree.sha,
    tree: Object.entries(files).map(([path, content]) =>
      content === null
        ? { path, mode: '100644' as const, type: 'blob' as const, sha: null }
        : { path, mode: '100644' as const, type: 'blob' as const, content },
    ),
  });
  const { data: commit } = await gh.octokit.rest.git.createCommit({
    owner,
    repo,
    message,
    tree: tree.sha,
    parents: [parent],
  });
  return commit.sha;
}

describe('the GitHub emulator: repository and git data', () => {
  it('describes the repository with its default branch and the caller permissions, as GitHub documents', async () => {
    const response = await gh.octokit.rest.repos.get({ owner, repo });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}', 200, response.data);
    expect(response.data).toMatchObject({ full_name: 'acme/app', default_branch: 'main', private: true });
    expect(response.data.permissions).toMatchObject({ push: true, admin: false });
    const asReader = await gh.as('reader').rest.repos.get({ owner, repo });
    expect(asReader.data.permissions).toMatchObject({ pull: true, push: false });
  });

  it('reads a ref and lists matching refs by prefix', async () => {
    const ref = await gh.octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/ref/{ref}', 200, ref.data);
    expect(ref.data).toMatchObject({ ref: 'refs/heads/main', object: { type: 'commit', sha: mainSha } });
    const matching = await gh.octokit.rest.git.listMatchingRefs({ owner, repo, ref: 'heads/ma' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/matching-refs/{ref}', 200, matching.data);
    expect(matching.data.map((r) => r.ref)).toEqual(['refs/heads/main']);
    const none = await gh.octokit.rest.git.listMatchingRefs({ owner, repo, ref: 'heads/agents/' });
    expect(none.data).toEqual([]);
    const missing = await failure(gh.octokit.rest.git.getRef({ owner, repo, ref: 'heads/nope' }));
    expect(missing.status).toBe(404);
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/ref/{ref}', 404, missing.data);
  });

  it('stores blobs given as utf-8 or base64 and hands them back as base64', async () => {
    const utf8 = await gh.octokit.rest.git.createBlob({ owner, repo, content: 'héllo\n', encoding: 'utf-8' });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/blobs', 201, utf8.data);
    const b64 = await gh.octokit.rest.git.createBlob({
      owner,
      repo,
      content: Buffer.from([0, 1, 2, 255]).toString('base64'),
      encoding: 'base64',
    });
    const read = await gh.octokit.rest.git.getBlob({ owner, repo, file_sha: utf8.data.sha });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/blobs/{file_sha}', 200, read.data);
    expect(Buffer.from(read.data.content, 'base64').toString('utf8')).toBe('héllo\n');
    const binary = await gh.octokit.rest.git.getBlob({ owner, repo, file_sha: b64.data.sha });
    expect([...Buffer.from(binary.data.content, 'base64')]).toEqual([0, 1, 2, 255]);
    expect(binary.data.size).toBe(4);
  });

  it('builds trees on a base tree: adds by content and by sha, deletes with sha null, at any depth', async () => {
    const { data: base } = await gh.octokit.rest.git.getCommit({ owner, repo, commit_sha: mainSha });
    const blob = await gh.octokit.rest.git.createBlob({ owner, repo, content: 'by sha\n' });
    const created = await gh.octokit.rest.git.createTree({
      owner,
      repo,
      base_tree: base.tree.sha,
      tree: [
        { path: 'src/deep/new.ts', mode: '100644', type: 'blob', content: 'export {};\n' },
        { path: 'docs/by-sha.md', mode: '100644', type: 'blob', sha: blob.data.sha },
        { path: 'src/deep/b.ts', mode: '100644', type: 'blob', sha: null },
      ],
    });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/trees', 201, created.data);
    const full = await gh.octokit.rest.git.getTree({
      owner,
      repo,
      tree_sha: created.data.sha,
      recursive: 'true',
    });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/trees/{tree_sha}', 200, full.data);
    const paths = full.data.tree.map((e) => `${e.type}:${e.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'blob:README.md',
        'blob:src/a.ts',
        'tree:src/deep',
        'blob:src/deep/new.ts',
        'blob:docs/by-sha.md',
      ]),
    );
    expect(paths).not.toContain('blob:src/deep/b.ts');
    const top = await gh.octokit.rest.git.getTree({ owner, repo, tree_sha: created.data.sha });
    expect(top.data.tree.map((e) => e.path)).toEqual(['README.md', 'docs', 'src']);
  });

  it('refuses a tree entry with a path that climbs out of the tree', async () => {
    const result = await failure(
      gh.octokit.rest.git.createTree({
        owner,
        repo,
        tree: [{ path: '../x', mode: '100644', type: 'blob', content: 'x' }],
      }),
    );
    expect(result.status).toBe(422);
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/trees', 422, result.data);
  });

  it('creates a commit with its parents and reads it back', async () => {
    const sha = await commitOnTop(mainSha, { 'src/a.ts': 'export const a = 42;\n' }, 'Change a');
    const read = await gh.octokit.rest.git.getCommit({ owner, repo, commit_sha: sha });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/commits/{commit_sha}', 200, read.data);
    expect(read.data).toMatchObject({ message: 'Change a', parents: [{ sha: mainSha }] });
    expect(read.data.author.name).toBe('slack-agents-sandbox[bot]');
    const viaApi = await gh.octokit.rest.git.createCommit({
      owner,
      repo,
      message: 'x',
      tree: read.data.tree.sha,
      parents: [sha],
    });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/commits', 201, viaApi.data);
  });

  it('creates a branch, moves it forward, refuses a non-fast-forward without force and takes it with force', async () => {
    const first = await commitOnTop(mainSha, { 'f.txt': '1\n' }, 'one');
    const second = await commitOnTop(first, { 'f.txt': '2\n' }, 'two');
    const sideways = await commitOnTop(mainSha, { 'g.txt': 'x\n' }, 'sideways');
    const created = await gh.octokit.rest.git.createRef({
      owner,
      repo,
      ref: 'refs/heads/agents/bug-1',
      sha: first,
    });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/refs', 201, created.data);
    const again = await failure(
      gh.octokit.rest.git.createRef({ owner, repo, ref: 'refs/heads/agents/bug-1', sha: first }),
    );
    expect(again).toMatchObject({ status: 422, data: { message: 'Reference already exists' } });
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/refs', 422, again.data);

    const forward = await gh.octokit.rest.git.updateRef({
      owner,
      repo,
      ref: 'heads/agents/bug-1',
      sha: second,
    });
    assertMatchesSchema('PATCH', '/repos/{owner}/{repo}/git/refs/{ref}', 200, forward.data);
    expect(forward.data.object.sha).toBe(second);
    const refused = await failure(
      gh.octokit.rest.git.updateRef({ owner, repo, ref: 'heads/agents/bug-1', sha: sideways }),
    );
    expect(refused).toMatchObject({ status: 422, data: { message: 'Update is not a fast forward' } });
    assertMatchesSchema('PATCH', '/repos/{owner}/{repo}/git/refs/{ref}', 422, refused.data);
    const forced = await gh.octokit.rest.git.updateRef({
      owner,
      repo,
      ref: 'heads/agents/bug-1',
      sha: sideways,
      force: true,
    });
    expect(forced.data.object.sha).toBe(sideways);

    const deleted = await gh.octokit.rest.git.deleteRef({ owner, repo, ref: 'heads/agents/bug-1' });
    expect(deleted.status).toBe(204);
    expect(
      (await failure(gh.octokit.rest.git.getRef({ owner, repo, ref: 'heads/agents/bug-1' }))).status,
    ).toBe(404);
    const deleteAgain = await failure(
      gh.octokit.rest.git.deleteRef({ owner, repo, ref: 'heads/agents/bug-1' }),
    );
    expect(deleteAgain.status).toBe(422);
  });

  it('refuses a ref name git does not allow', async () => {
    for (const ref of [
      'refs/heads/a..b',
      'refs/heads/x.lock',
      'refs/heads/-x',
      'heads/no-refs-prefix',
      'refs/heads/@',
    ]) {
      const result = await failure(gh.octokit.rest.git.createRef({ owner, repo, ref, sha: mainSha }));
      expect({ ref, status: result.status }).toEqual({ ref, status: 422 });
    }
  });

  it('refuses a ref pointing at an object that does not exist', async () => {
    const result = await failure(
      gh.octokit.rest.git.createRef({ owner, repo, ref: 'refs/heads/x', sha: 'f'.repeat(40) }),
    );
    expect(result).toMatchObject({ status: 422, data: { message: 'Object does not exist' } });
  });

  it('answers a request it cannot parse with a 422 naming the field', async () => {
    const result = await failure(
      gh.octokit.request('POST /repos/{owner}/{repo}/git/refs', {
        owner,
        repo,
        ref: 'refs/heads/y',
        sha: 'nope',
      }),
    );
    expect(result.status).toBe(422);
    expect((result.data as { message: string }).message).toContain('sha');
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/refs', 422, result.data);
  });
});

describe('the GitHub emulator: commits, comparisons, branches, contents and tarballs', () => {
  it('shows a commit with its files and patches', async () => {
    const sha = await commitOnTop(
      mainSha,
      { 'src/a.ts': 'export const a = 3;\n', 'README.md': null },
      'three',
    );
    const response = await gh.octokit.rest.repos.getCommit({ owner, repo, ref: sha });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/commits/{ref}', 200, response.data);
    const files = Object.fromEntries((response.data.files ?? []).map((f) => [f.filename, f]));
    expect(files['src/a.ts']).toMatchObject({ status: 'modified', additions: 1, deletions: 1 });
    expect(files['src/a.ts']?.patch).toContain('-export const a = 1;\n+export const a = 3;');
    expect(files['README.md']).toMatchObject({ status: 'removed', deletions: 1 });
    const unknown = await failure(gh.octokit.rest.repos.getCommit({ owner, repo, ref: 'no-such-branch' }));
    expect(unknown.status).toBe(422);
  });

  it('compares two refs: ahead, behind and diverged, with the files changed since the merge base', async () => {
    const ahead = await commitOnTop(mainSha, { 'new.ts': 'export {};\n' }, 'ahead');
    await gh.octokit.rest.git.createRef({ owner, repo, ref: 'refs/heads/agents/cmp', sha: ahead });
    const response = await gh.octokit.rest.repos.compareCommitsWithBasehead({
      owner,
      repo,
      basehead: 'main...agents/cmp',
    });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/compare/{basehead}', 200, response.data);
    expect(response.data).toMatchObject({ status: 'ahead', ahead_by: 1, behind_by: 0, total_commits: 1 });
    expect(response.data.files?.map((f) => [f.filename, f.status])).toEqual([['new.ts', 'added']]);
    expect(response.data.files?.[0]?.patch).toBe('@@ -0,0 +1 @@\n+export {};');
    const behind = await gh.octokit.rest.repos.compareCommitsWithBasehead({
      owner,
      repo,
      basehead: 'agents/cmp...main',
    });
    expect(behind.data).toMatchObject({ status: 'behind', ahead_by: 0, behind_by: 1, files: [] });
    const other = await commitOnTop(mainSha, { 'other.ts': 'x\n' }, 'other');
    const diverged = await gh.octokit.rest.repos.compareCommitsWithBasehead({
      owner,
      repo,
      basehead: `agents/cmp...${other}`,
    });
    expect(diverged.data).toMatchObject({ status: 'diverged', ahead_by: 1, behind_by: 1 });
    expect(diverged.data.files?.map((f) => f.filename)).toEqual(['other.ts']);
  });

  it('shows a branch with its head commit', async () => {
    const response = await gh.octokit.rest.repos.getBranch({ owner, repo, branch: 'main' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/branches/{branch}', 200, response.data);
    expect(response.data).toMatchObject({ name: 'main', commit: { sha: mainSha }, protected: false });
    const missing = await failure(gh.octokit.rest.repos.getBranch({ owner, repo, branch: 'nope' }));
    expect(missing.status).toBe(404);
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/branches/{branch}', 404, missing.data);
  });

  it('serves file contents as base64 and directories as lists, at a ref', async () => {
    const file = await gh.octokit.rest.repos.getContent({ owner, repo, path: 'src/a.ts' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/contents/{path}', 200, file.data);
    expect(file.data).toMatchObject({ type: 'file', path: 'src/a.ts', encoding: 'base64' });
    const content = 'content' in file.data ? String(file.data.content) : '';
    expect(Buffer.from(content, 'base64').toString('utf8')).toBe('export const a = 1;\n');
    const dir = await gh.octokit.rest.repos.getContent({ owner, repo, path: 'src' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/contents/{path}', 200, dir.data);
    expect(Array.isArray(dir.data) ? dir.data.map((e) => `${e.type}:${e.path}`) : []).toEqual([
      'file:src/a.ts',
      'dir:src/deep',
    ]);
    const root = await gh.octokit.rest.repos.getContent({ owner, repo, path: '' });
    expect(Array.isArray(root.data) ? root.data.map((e) => e.name) : []).toEqual(['README.md', 'src']);
    const changed = await commitOnTop(mainSha, { 'src/a.ts': 'export const a = 9;\n' }, 'nine');
    const atRef = await gh.octokit.rest.repos.getContent({ owner, repo, path: 'src/a.ts', ref: changed });
    const atContent = 'content' in atRef.data ? String(atRef.data.content) : '';
    expect(Buffer.from(atContent, 'base64').toString('utf8')).toBe('export const a = 9;\n');
    const missing = await failure(gh.octokit.rest.repos.getContent({ owner, repo, path: 'src/nope.ts' }));
    expect(missing.status).toBe(404);
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/contents/{path}', 404, missing.data);
  });

  it('shows a symlink as its target, and refuses a path that climbs out of the repository', async () => {
    const { data: tree } = await gh.octokit.rest.git.createTree({
      owner,
      repo,
      base_tree: (await gh.octokit.rest.git.getCommit({ owner, repo, commit_sha: mainSha })).data.tree.sha,
      tree: [{ path: 'link.ts', mode: '120000', type: 'blob', content: 'src/a.ts' }],
    });
    const { data: commit } = await gh.octokit.rest.git.createCommit({
      owner,
      repo,
      message: 'link',
      tree: tree.sha,
      parents: [mainSha],
    });
    const link = await gh.octokit.rest.repos.getContent({ owner, repo, path: 'link.ts', ref: commit.sha });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/contents/{path}', 200, link.data);
    expect(link.data).toMatchObject({ type: 'symlink', target: 'src/a.ts' });
    // Encoded slashes survive URL normalisation, so `..` reaches the emulator as a path segment.
    const token = gh.emulator.createUserToken('dev');
    const climbing = await fetch(`${gh.emulator.apiUrl}/repos/acme/app/contents/src%2F..%2F..%2Fetc`, {
      headers: { authorization: `token ${token}` },
    });
    expect(climbing.status).toBe(404);
  });

  it('redirects a tarball request to a download that Octokit follows, one top-level directory as on GitHub', async () => {
    const response = await gh.octokit.rest.repos.downloadTarballArchive({ owner, repo, ref: 'main' });
    expect(response.status).toBe(200);
    const bytes = Buffer.from(response.data as ArrayBuffer);
    const entries: Record<string, string> = {};
    await pipeline(
      Readable.from(bytes),
      tar.t({
        onReadEntry: (entry) => {
          const chunks: Buffer[] = [];
          entry.on('data', (c: Buffer) => chunks.push(c));
          entry.on('end', () => {
            entries[entry.path] = Buffer.concat(chunks).toString('utf8');
          });
        },
      }),
    );
    const top = `acme-app-${mainSha.slice(0, 7)}/`;
    expect(Object.keys(entries).every((p) => p.startsWith(top))).toBe(true);
    expect(entries[`${top}src/a.ts`]).toBe('export const a = 1;\n');
  });

  it('answers 404 for the tarball of a ref that does not exist', async () => {
    const result = await failure(
      gh.octokit.rest.repos.downloadTarballArchive({ owner, repo, ref: 'no-such-ref' }),
    );
    expect(result).toMatchObject({
      status: 404,
      data: { message: 'No commit found for the ref no-such-ref' },
    });
  });

  it('answers the tarball request itself with a 302 to a signed link that expires', async () => {
    const token = gh.emulator.createUserToken('dev');
    const res = await fetch(`${gh.emulator.apiUrl}/repos/acme/app/tarball/main`, {
      redirect: 'manual',
      headers: { authorization: `token ${token}` },
    });
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    expect((await fetch(location)).status).toBe(200);
    const tampered = location.replace(/token=[0-9a-f]/, (m) =>
      m.endsWith('0') ? `${m.slice(0, -1)}1` : `${m.slice(0, -1)}0`,
    );
    expect((await fetch(tampered)).status).toBe(404);
  });
});

describe('the GitHub emulator: who may do what', () => {
  it('asks for authentication on a private repository', async () => {
    const result = await failure(gh.anonymous.rest.repos.get({ owner, repo }));
    expect(result).toMatchObject({ status: 401, data: { message: 'Requires authentication' } });
  });

  it('refuses a write without credentials even where reading needs none', async () => {
    await gh.emulator.store.createRepository({ owner, name: 'open', private: false, files: { a: 'a' } });
    expect((await gh.anonymous.rest.repos.get({ owner, repo: 'open' })).data.private).toBe(false);
    const write = await failure(gh.anonymous.rest.issues.create({ owner, repo: 'open', title: 'x' }));
    expect(write).toMatchObject({ status: 401, data: { message: 'Requires authentication' } });
  });

  it('rejects an unknown token as bad credentials', async () => {
    const { Octokit } = await import('@octokit/rest');
    const stranger = new Octokit({
      baseUrl: gh.emulator.apiUrl,
      auth: 'ghp_not_a_token',
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    expect(await failure(stranger.rest.repos.get({ owner, repo }))).toMatchObject({
      status: 401,
      data: { message: 'Bad credentials' },
    });
  });

  it('hides a private repository from a user without access and refuses writes by a reader', async () => {
    expect((await failure(gh.as('outsider').rest.repos.get({ owner, repo }))).status).toBe(404);
    const write = await failure(gh.as('reader').rest.git.createBlob({ owner, repo, content: 'x' }));
    expect(write.status).toBe(403);
    assertMatchesSchema('POST', '/repos/{owner}/{repo}/git/blobs', 403, write.data);
    const ok = await gh.as('dev').rest.git.createBlob({ owner, repo, content: 'x' });
    expect(ok.status).toBe(201);
  });
});
