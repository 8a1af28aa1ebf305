import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ZodError } from 'zod';
import type { Actor, Auth } from './auth.ts';
import { GitCommandError, GitHubApiError, notFound } from './errors.ts';
import type { GitHubStore, Permission, RepoRecord } from './store.ts';
import type { Views } from './views.ts';
import type { Webhooks } from './webhooks.ts';

/**
 * Who may call a route: `app` needs the App's JWT; `read`/`write` a repository permission of at
 * least that level (installations have `write` on every repository); `public` anyone.
 */
export type Access = 'public' | 'app' | 'read' | 'write';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A binary body (e.g. a tarball), sent as is. */
  raw?: Buffer;
  /** A page of a list: the router adds GitHub's `Link` header (next, last, first, prev). */
  pagination?: { page: number; perPage: number; total: number };
}

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (undefined when the request had none). */
  body: unknown;
  actor: Actor;
  /** The actor's login (the bot's for an installation), for what it creates. */
  login: string;
  /** `/repos/{owner}/{repo}/...` routes only. */
  repo: RepoRecord;
  permission: Permission;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** `/repos/:owner/:repo/git/ref/*ref`: `:x` one segment, `*x` the rest of the path. */
  path: string;
  access: Access;
  handler: (ctx: RouteContext) => Promise<Reply>;
}

export interface RouterDeps {
  store: GitHubStore;
  auth: Auth;
  views: Views;
  webhooks: Webhooks;
}

interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

const RANK: Record<Permission, number> = { none: 0, read: 1, write: 2, admin: 3 };

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        return '([^/]+)';
      }
      if (segment.startsWith('*')) {
        names.push(segment.slice(1));
        return '(.+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}$`), names };
}

/** Answers the REST API under `prefix` (`/api/v3`), routing to the resource groups' routes. */
export function createRouter(deps: RouterDeps, routes: readonly Route[], prefix: string) {
  const compiled = routes.map(compile);
  return async (req: IncomingMessage, res: ServerResponse, rawBody: string): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://github.local');
    const path = url.pathname.slice(prefix.length) || '/';
    const method = req.method ?? 'GET';
    let reply: Reply;
    try {
      reply = await dispatch(
        deps,
        compiled,
        method,
        path,
        url.searchParams,
        req.headers.authorization,
        rawBody,
      );
    } catch (error) {
      reply = errorReply(error);
    }
    if (reply.pagination) {
      const link = linkHeader(`${deps.views.api}${path}`, url.searchParams, reply.pagination);
      if (link) reply.headers = { ...reply.headers, link };
    }
    send(res, reply);
  };
}

async function dispatch(
  deps: RouterDeps,
  routes: CompiledRoute[],
  method: string,
  path: string,
  query: URLSearchParams,
  authorization: string | undefined,
  rawBody: string,
): Promise<Reply> {
  let matched: { route: CompiledRoute; params: Record<string, string> } | undefined;
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1] ?? '');
    });
    matched = { route, params };
    break;
  }
  if (!matched) throw notFound();
  const { route, params } = matched;
  const actor = deps.auth.identify(authorization);
  const login =
    actor.kind === 'user' || actor.kind === 'installation'
      ? actor.login
      : actor.kind === 'app'
        ? deps.auth.botLogin
        : '';
  // Nobody writes anonymously, not even to a public repository.
  if (method !== 'GET' && actor.kind === 'anonymous')
    throw new GitHubApiError(401, 'Requires authentication');
  if (route.access === 'app' && actor.kind !== 'app') {
    throw new GitHubApiError(401, 'A JSON web token could not be decoded');
  }
  let repo: RepoRecord | undefined;
  let permission: Permission = 'none';
  if (params.owner !== undefined && params.repo !== undefined) {
    repo = deps.store.repository(params.owner, params.repo);
    if (!repo) throw notFound();
    if (repo.private && actor.kind === 'anonymous') throw new GitHubApiError(401, 'Requires authentication');
    permission =
      actor.kind === 'installation'
        ? 'write'
        : actor.kind === 'user'
          ? deps.store.permission(repo, actor.login)
          : repo.private
            ? 'none'
            : 'read';
    if (route.access === 'read' || route.access === 'write') {
      if (actor.kind === 'app') throw new GitHubApiError(403, 'Resource not accessible by integration');
      // A repository the caller cannot read does not exist, as far as GitHub tells them.
      if (RANK[permission] < RANK.read) throw notFound();
      if (route.access === 'write' && RANK[permission] < RANK.write) {
        throw new GitHubApiError(403, 'Must have push access to repository');
      }
    }
  }
  let body: unknown;
  if (rawBody.trim() !== '') {
    try {
      body = JSON.parse(rawBody);
    } catch (error) {
      throw new GitHubApiError(400, 'Problems parsing JSON', { cause: error });
    }
  }
  return route.handler({
    params,
    query,
    body,
    actor,
    login,
    repo: repo as RepoRecord,
    permission,
  });
}

/** `<...&page=2>; rel="next", <...&page=5>; rel="last"`, as GitHub sends it. */
function linkHeader(
  base: string,
  query: URLSearchParams,
  p: NonNullable<Reply['pagination']>,
): string | undefined {
  const last = Math.max(1, Math.ceil(p.total / p.perPage));
  const at = (n: number) => {
    const q = new URLSearchParams(query);
    q.set('per_page', String(p.perPage));
    q.set('page', String(n));
    return `<${base}?${q}>`;
  };
  const links: string[] = [];
  if (p.page > 1) links.push(`${at(p.page - 1)}; rel="prev"`);
  if (p.page < last) links.push(`${at(p.page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (p.page > 1) links.push(`${at(1)}; rel="first"`);
  return links.length > 0 ? links.join(', ') : undefined;
}

function errorReply(error: unknown): Reply {
  if (error instanceof GitHubApiError) return { status: error.status, body: error.body() };
  if (error instanceof ZodError) {
    const first = error.issues[0];
    const field = first?.path.join('.') ?? '';
    const detail = first ? `${field ? `"${field}" ` : ''}${first.message}` : 'invalid';
    return {
      status: 422,
      body: new GitHubApiError(422, `Invalid request.\n\n${detail}`, {
        errors: error.issues.map((i) => ({
          resource: 'Request',
          field: i.path.join('.'),
          code: 'invalid',
          message: i.message,
        })),
      }).body(),
    };
  }
  // A git failure the endpoint did not translate, or a bug: logged, and answered as GitHub would.
  console.error(`[github] ${error instanceof GitCommandError ? 'git failed' : 'request failed'}`, error);
  return { status: 500, body: new GitHubApiError(500, 'Server Error').body() };
}

function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = {
    'x-github-request-id': randomUUID(),
    'x-github-media-type': 'github.v3; format=json',
    'x-github-enterprise-version': '3.19.0',
    ...reply.headers,
  };
  if (reply.raw) {
    res.writeHead(reply.status, { 'content-length': String(reply.raw.length), ...headers }).end(reply.raw);
    return;
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(reply.body));
}
