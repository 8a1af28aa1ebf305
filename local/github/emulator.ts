import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { removeScratch, scratchDirectory } from '../../infra/scratch.ts';
import { type AppSettings, Auth } from './auth.ts';
import { Events } from './events.ts';
import { createRouter, type RouterDeps } from './router.ts';
import { CODELOAD_PREFIX, contentRoutes, createCodeload, DownloadLinks } from './routes-contents.ts';
import { gitDataRoutes } from './routes-git.ts';
import { issueRoutes } from './routes-issues.ts';
import { pullRoutes, pullView } from './routes-pulls.ts';
import { repositoryRoutes } from './routes-repos.ts';
import { reviewRoutes } from './routes-reviews.ts';
import { GitHubStore } from './store.ts';
import { Views } from './views.ts';
import { Webhooks } from './webhooks.ts';

/** Where the REST API answers: GitHub Enterprise Server's layout, so Octokit's `baseUrl` is the only switch. */
export const GITHUB_API_PREFIX = '/api/v3';

export interface GitHubEmulatorOptions {
  /** The server's own URL, e.g. `http://127.0.0.1:3000` (the API is at `<baseUrl>/api/v3`). */
  baseUrl: string;
  /** Where webhooks are delivered; undefined: recorded only. */
  webhookUrl?: string;
  /** The webhook secret. @default a random one */
  webhookSecret?: string;
  app?: Partial<AppSettings>;
  /** Where the bare repositories go. @default a fresh temporary directory, removed by `close()` */
  root?: string;
  now?: () => Date;
}

export interface GitHubEmulator {
  readonly store: GitHubStore;
  readonly webhooks: Webhooks;
  /** Sends the webhooks of what happens (issues opened, labelled, comments...). */
  readonly events: Events;
  readonly auth: Auth;
  readonly views: Views;
  readonly apiUrl: string;
  /** Whether a request path is the emulator's (the API or its download links). */
  handles(path: string): boolean;
  /** Serves a request whose path `handles` claimed; `body` is the request body as text. */
  serve(req: IncomingMessage, res: ServerResponse, body: string): Promise<void>;
  /** A personal access token acting as `login` (for people and tests). */
  createUserToken(login: string): string;
  close(): Promise<void>;
}

/**
 * A GitHub REST API emulator backed by real git repositories on disk: the subset of the API the
 * code tools, the bug workflow and the issue pipeline call, answered with GitHub's statuses,
 * error bodies and response shapes (checked against GitHub's OpenAPI description in tests).
 */
export async function startGitHubEmulator(options: GitHubEmulatorOptions): Promise<GitHubEmulator> {
  const ownRoot = options.root === undefined;
  const root = options.root ?? scratchDirectory('sandbox-github-');
  const now = options.now ?? (() => new Date());
  const store = new GitHubStore(root, now);
  const userTokens = new Map<string, string>();
  const auth = new Auth(
    { appId: 1, slug: 'slack-agents-sandbox', installationId: 1, ...options.app },
    userTokens,
    now,
  );
  const views = new Views(options.baseUrl, store);
  const webhooks = new Webhooks({
    url: options.webhookUrl,
    secret: options.webhookSecret ?? randomBytes(32).toString('hex'),
  });
  const deps: RouterDeps = { store, auth, views, webhooks };
  const links = new DownloadLinks(options.baseUrl, now);
  const events = new Events(deps, (repo, issue) => pullView(views, repo, issue));
  const router = createRouter(
    deps,
    [
      ...repositoryRoutes(deps),
      ...gitDataRoutes(deps),
      ...contentRoutes(deps, links),
      ...issueRoutes(deps, events),
      ...pullRoutes(deps, events),
      ...reviewRoutes(deps, events),
    ],
    GITHUB_API_PREFIX,
  );
  const codeload = createCodeload(store, links);
  return {
    store,
    webhooks,
    events,
    auth,
    views,
    apiUrl: `${options.baseUrl}${GITHUB_API_PREFIX}`,
    handles: (path) => path.startsWith(`${GITHUB_API_PREFIX}/`) || path.startsWith(CODELOAD_PREFIX),
    async serve(req, res, body) {
      const path = new URL(req.url ?? '/', 'http://github.local').pathname;
      if (path.startsWith(CODELOAD_PREFIX)) return codeload(req, res);
      return router(req, res, body);
    },
    createUserToken(login) {
      const token = `ghp_${randomBytes(18).toString('hex')}`;
      userTokens.set(token, login);
      store.user(login);
      return token;
    },
    async close() {
      await webhooks.settled();
      if (ownRoot) removeScratch(root);
    },
  };
}
