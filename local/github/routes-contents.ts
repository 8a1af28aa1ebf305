import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GitHubApiError, notFound } from './errors.ts';
import type { GitTreeEntry } from './git-repository.ts';
import type { Route, RouteContext, RouterDeps } from './router.ts';
import { base64Lines } from './routes-git.ts';
import type { GitHubStore, RepoRecord } from './store.ts';
import { encodePath, type Views } from './views.ts';

/** Git's empty tree: what a root commit is compared with. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** How long a tarball download link works (GitHub's codeload links are short-lived too). */
const LINK_LIFETIME_MS = 5 * 60 * 1000;
export const CODELOAD_PREFIX = '/_codeload/';

/**
 * Signed, expiring download links. `GET /tarball/{ref}` answers 302 to one, as GitHub sends
 * clients to codeload with a token in the URL: the download then needs no Authorization header
 * (which fetch drops on redirects to another origin anyway).
 */
export class DownloadLinks {
  private readonly key = randomBytes(32);

  constructor(
    private readonly baseUrl: string,
    private readonly now: () => Date,
  ) {}

  tarball(repo: RepoRecord, sha: string): string {
    const expires = this.now().getTime() + LINK_LIFETIME_MS;
    const path = `${CODELOAD_PREFIX}${repo.fullName}/legacy.tar.gz/${sha}`;
    return `${this.baseUrl}${path}?expires=${expires}&token=${this.sign(path, expires)}`;
  }

  verify(path: string, expires: string | null, token: string | null): boolean {
    if (!expires || !token || Number(expires) < this.now().getTime()) return false;
    const expected = Buffer.from(this.sign(path, Number(expires)));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private sign(path: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${path}\n${expires}`).digest('hex');
  }
}

/** Contents, tarballs, commits with their diffs, comparisons and branches. */
export function contentRoutes({ views }: RouterDeps, links: DownloadLinks): Route[] {
  const commitOf = async (repo: RepoRecord, ref: string | null | undefined) => {
    const name = ref || repo.defaultBranch;
    const sha = await repo.git.resolveCommit(name);
    if (!sha) throw new GitHubApiError(404, `No commit found for the ref ${name}`);
    return sha;
  };
  const contents = async ({ repo, params, query }: RouteContext) => {
    const sha = await commitOf(repo, query.get('ref'));
    const path = (params.path ?? '').replace(/\/+$/, '');
    if (path.split('/').some((segment) => segment === '..' || segment === '.')) {
      throw notFound('/repos/contents#get-repository-content');
    }
    if (path === '') {
      const entries = await repo.git.listTree(sha);
      return { status: 200, body: entries.map((e) => contentEntry(views, repo, sha, e, e.path)) };
    }
    const [entry] = await repo.git.listTree(sha, { path });
    if (!entry || entry.path !== path) throw notFound('/repos/contents#get-repository-content');
    if (entry.type === 'tree') {
      const children = await repo.git.listTree(`${sha}:${path}`);
      return {
        status: 200,
        body: children.map((e) => contentEntry(views, repo, sha, e, `${path}/${e.path}`)),
      };
    }
    const item = contentEntry(views, repo, sha, entry, path);
    if (item.type === 'symlink') {
      // GitHub answers a symlink with where it points, not with its content.
      return {
        status: 200,
        body: { ...item, target: (await repo.git.readBlob(entry.sha)).toString('utf8') },
      };
    }
    if (item.type !== 'file') return { status: 200, body: item };
    const content = await repo.git.readBlob(entry.sha);
    return { status: 200, body: { ...item, content: base64Lines(content), encoding: 'base64' } };
  };
  const tarball = async ({ repo, params }: RouteContext) => {
    const sha = await commitOf(repo, params.ref);
    return { status: 302, headers: { location: links.tarball(repo, sha) } };
  };
  return [
    { method: 'GET', path: '/repos/:owner/:repo/contents', access: 'read', handler: contents },
    { method: 'GET', path: '/repos/:owner/:repo/contents/', access: 'read', handler: contents },
    { method: 'GET', path: '/repos/:owner/:repo/contents/*path', access: 'read', handler: contents },
    { method: 'GET', path: '/repos/:owner/:repo/tarball', access: 'read', handler: tarball },
    { method: 'GET', path: '/repos/:owner/:repo/tarball/*ref', access: 'read', handler: tarball },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/commits/*ref',
      access: 'read',
      handler: async ({ repo, params }) => {
        const sha = await repo.git.resolveCommit(params.ref ?? '');
        if (!sha) throw new GitHubApiError(422, `No commit found for SHA: ${params.ref}`);
        const commit = await repo.git.readCommit(sha);
        const files = await repo.git.diff(commit.parents[0] ?? EMPTY_TREE, sha);
        return { status: 200, body: views.commit(repo, commit, files) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/compare/*basehead',
      access: 'read',
      handler: async ({ repo, params }) => {
        const [baseName = '', headName = ''] = (params.basehead ?? '').split('...');
        const base = await repo.git.resolveCommit(baseName);
        const head = await repo.git.resolveCommit(headName);
        if (!base || !head) throw notFound('/commits/commits#compare-two-commits');
        return { status: 200, body: await comparison(views, repo, base, head, `${baseName}...${headName}`) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/branches/*branch',
      access: 'read',
      handler: async ({ repo, params }) => {
        const name = params.branch ?? '';
        const sha = (await repo.git.ref(`refs/heads/${name}`))?.sha;
        if (!sha) throw new GitHubApiError(404, 'Branch not found');
        const r = views.repoApi(repo);
        return {
          status: 200,
          body: {
            name,
            commit: views.commit(repo, await repo.git.readCommit(sha)),
            _links: {
              self: `${r}/branches/${encodePath(name)}`,
              html: `${views.repoHtml(repo)}/tree/${encodePath(name)}`,
            },
            protected: false,
            protection: {
              enabled: false,
              required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] },
            },
            protection_url: `${r}/branches/${encodePath(name)}/protection`,
          },
        };
      },
    },
  ];
}

/** `GET /compare/{base}...{head}`: what head has that the merge base has not. */
export async function comparison(
  views: Views,
  repo: RepoRecord,
  base: string,
  head: string,
  basehead: string,
) {
  const mergeBase = (await repo.git.mergeBase(base, head)) ?? base;
  const ahead = await repo.git.commitsBetween(base, head);
  const behind = await repo.git.commitsBetween(head, base);
  const status =
    ahead.length === 0 && behind.length === 0
      ? 'identical'
      : behind.length === 0
        ? 'ahead'
        : ahead.length === 0
          ? 'behind'
          : 'diverged';
  const commits = await Promise.all(
    ahead.map(async (sha) => views.commit(repo, await repo.git.readCommit(sha))),
  );
  const files = await repo.git.compare(mergeBase, head);
  const r = views.repoApi(repo);
  const html = `${views.repoHtml(repo)}/compare/${basehead}`;
  return {
    url: `${r}/compare/${basehead}`,
    html_url: html,
    permalink_url: `${views.repoHtml(repo)}/compare/${base}...${head}`,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    base_commit: views.commit(repo, await repo.git.readCommit(base)),
    merge_base_commit: views.commit(repo, await repo.git.readCommit(mergeBase)),
    status,
    ahead_by: ahead.length,
    behind_by: behind.length,
    total_commits: ahead.length,
    commits,
    files: files.map((f) => ({
      ...views.diffEntry(repo, head, f),
      status: f.status,
      ...(f.previous_filename === undefined ? {} : { previous_filename: f.previous_filename }),
    })),
  };
}

function contentEntry(views: Views, repo: RepoRecord, sha: string, e: GitTreeEntry, path: string) {
  const type =
    e.type === 'tree' ? 'dir' : e.type === 'commit' ? 'submodule' : e.mode === '120000' ? 'symlink' : 'file';
  const r = views.repoApi(repo);
  const url = `${r}/contents/${encodePath(path)}?ref=${sha}`;
  const gitUrl = e.type === 'commit' ? null : `${r}/git/${e.type === 'tree' ? 'trees' : 'blobs'}/${e.sha}`;
  const html = `${views.repoHtml(repo)}/${e.type === 'tree' ? 'tree' : 'blob'}/${sha}/${encodePath(path)}`;
  return {
    type,
    name: path.slice(path.lastIndexOf('/') + 1),
    path,
    sha: e.sha,
    size: e.size ?? 0,
    url,
    html_url: html,
    git_url: gitUrl,
    download_url: type === 'file' ? `${views.repoHtml(repo)}/raw/${sha}/${encodePath(path)}` : null,
    _links: { self: url, git: gitUrl, html },
  };
}

/** Serves the download links of `DownloadLinks`: the gzipped tarball, top directory `<owner>-<repo>-<sha7>/`. */
export function createCodeload(store: GitHubStore, links: DownloadLinks) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://github.local');
    const match = /^\/_codeload\/([^/]+)\/([^/]+)\/legacy\.tar\.gz\/([0-9a-f]{40})$/.exec(url.pathname);
    const repo = match ? store.repository(match[1] ?? '', match[2] ?? '') : undefined;
    if (
      !match ||
      !repo ||
      !links.verify(url.pathname, url.searchParams.get('expires'), url.searchParams.get('token'))
    ) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404: Not Found');
      return;
    }
    const sha = match[3] ?? '';
    const top = `${repo.owner}-${repo.name}-${sha.slice(0, 7)}`;
    const archive = await repo.git.archive(sha, `${top}/`);
    res.writeHead(200, {
      'content-type': 'application/x-gzip',
      'content-disposition': `attachment; filename=${top}.tar.gz`,
      'content-length': String(archive.length),
    });
    res.end(archive);
  };
}
