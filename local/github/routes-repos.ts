import * as z from 'zod';
import { GitHubApiError, notFound } from './errors.ts';
import type { Route, RouterDeps } from './router.ts';

/** The App's installation permissions: what the README asks a real App to be granted. */
export const INSTALLATION_PERMISSIONS = {
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
  metadata: 'read',
} as const;

const INSTALLATION_EVENTS = ['issues', 'issue_comment', 'pull_request', 'pull_request_review'];

const AccessTokenRequest = z
  .object({
    repositories: z.array(z.string()).optional(),
    repository_ids: z.array(z.number()).optional(),
    permissions: z.record(z.string(), z.string()).optional(),
  })
  .optional();

/** The repository itself, the App's installation and its tokens, and collaborators. */
export function repositoryRoutes({ store, auth, views }: RouterDeps): Route[] {
  const installation = () => {
    const now = store.timestamp();
    const account = store.user('demo', 'Organization');
    return {
      id: auth.app.installationId,
      account: views.user(account),
      repository_selection: 'all',
      access_tokens_url: `${views.api}/app/installations/${auth.app.installationId}/access_tokens`,
      repositories_url: `${views.api}/installation/repositories`,
      html_url: `${views.html}/installations/${auth.app.installationId}`,
      app_id: auth.app.appId,
      app_slug: auth.app.slug,
      target_id: account.id,
      target_type: 'Organization',
      permissions: INSTALLATION_PERMISSIONS,
      events: INSTALLATION_EVENTS,
      created_at: now,
      updated_at: now,
      single_file_name: null,
      has_multiple_single_files: false,
      single_file_paths: [],
      suspended_by: null,
      suspended_at: null,
    };
  };
  return [
    {
      method: 'GET',
      path: '/repos/:owner/:repo',
      access: 'read',
      handler: async ({ repo, permission }) => ({ status: 200, body: views.repository(repo, permission) }),
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/installation',
      access: 'app',
      handler: async () => ({ status: 200, body: installation() }),
    },
    {
      method: 'POST',
      path: '/app/installations/:installation_id/access_tokens',
      access: 'app',
      handler: async ({ params, body }) => {
        if (Number(params.installation_id) !== auth.app.installationId) throw notFound();
        const input = AccessTokenRequest.parse(body);
        const repositories = (input?.repositories ?? []).map((name) => {
          const repo = [...store.repos.values()].find((r) => r.name === name);
          if (!repo)
            throw new GitHubApiError(
              422,
              `There is at least one repository that does not exist or is not accessible to the parent installation.`,
            );
          return views.repository(repo);
        });
        const { token, expiresAt } = auth.mintInstallationToken();
        return {
          status: 201,
          body: {
            token,
            expires_at: expiresAt,
            permissions: input?.permissions ?? INSTALLATION_PERMISSIONS,
            repository_selection: repositories.length > 0 ? 'selected' : 'all',
            ...(repositories.length > 0 ? { repositories } : {}),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/collaborators/:username/permission',
      access: 'read',
      handler: async ({ repo, params }) => {
        const login = params.username ?? '';
        const permission = store.permission(repo, login);
        if (permission === 'none') throw new GitHubApiError(404, `${login} is not a user`);
        const user = views.user(store.user(login));
        const role = { admin: 'admin', write: 'write', read: 'read' }[permission];
        return {
          status: 200,
          body: {
            permission,
            role_name: role,
            user: { ...user, permissions: views.permissions(permission), role_name: role },
          },
        };
      },
    },
  ];
}
