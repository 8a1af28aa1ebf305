import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import * as z from 'zod';
import { withRedaction } from './github-redaction.ts';
import { readJsonSecret } from './secret-json.ts';
import { InvalidSecretError } from './secrets.ts';

/**
 * GitHub through the real client, `@octokit/rest`, pointed by `baseUrl` at github.com
 * (`https://api.github.com`), a GitHub Enterprise Server (`https://HOST/api/v3`) or the
 * sandbox's emulator (`http://127.0.0.1:<port>/api/v3`), the only switch between them.
 *
 * Two ways to authenticate, both from one Secrets Manager secret (JSON):
 * - a GitHub App: `{ "appId": "123", "privateKey": "-----BEGIN ...", "installationId": "456" }`.
 *   `@octokit/auth-app`'s `createAppAuth` strategy signs a JWT with the key and mints
 *   installation tokens as requests need them (kept until shortly before they expire, then
 *   minted again), so no long-lived token exists. Permissions the App needs: contents
 *   (write), pull requests (write), issues (write), metadata (read).
 * - a fine-grained personal access token: `{ "token": "github_pat_..." }`.
 */

export const DEFAULT_GITHUB_BASE_URL = 'https://api.github.com';

/** A repository as Octokit's parameters name it (`RepositoryRef` in tools/code/repository.ts parses one). */
export interface RepositoryCoordinates {
  owner: string;
  repo: string;
}

const numericId = z.union([z.number().int().positive(), z.string().regex(/^\d+$/, 'expected a numeric id')]);

export const GitHubAppCredentials = z.object({
  appId: numericId,
  privateKey: z.string().includes('PRIVATE KEY', { message: 'expected a PEM private key' }),
  installationId: numericId,
});
export const GitHubTokenCredentials = z.object({ token: z.string().min(1) });
export const GitHubCredentials = z.union([GitHubAppCredentials, GitHubTokenCredentials]);
export type GitHubCredentials = z.infer<typeof GitHubCredentials>;

export interface GitHubClientOptions {
  /** @default `https://api.github.com` */
  baseUrl?: string;
  credentials: GitHubCredentials;
  /** @default `slack-agent-workflows` */
  userAgent?: string;
  /** Where Octokit's own warnings go (deprecations, rate limits). @default console */
  log?: {
    debug: (m: string) => void;
    info: (m: string) => void;
    warn: (m: string) => void;
    error: (m: string) => void;
  };
}

/** An Octokit authenticated as the App installation or with the token; what it writes passes the redaction layer (github-redaction.ts). */
export function createGitHubClient(options: GitHubClientOptions): Octokit {
  const { credentials } = options;
  const common = {
    baseUrl: (options.baseUrl ?? DEFAULT_GITHUB_BASE_URL).replace(/\/+$/, ''),
    userAgent: options.userAgent ?? 'slack-agent-workflows',
    ...(options.log !== undefined ? { log: options.log } : {}),
  };
  if ('token' in credentials) return withRedaction(new Octokit({ ...common, auth: credentials.token }));
  return withRedaction(
    new Octokit({
      ...common,
      authStrategy: createAppAuth,
      auth: {
        appId: credentials.appId,
        privateKey: credentials.privateKey,
        installationId: credentials.installationId,
      },
    }),
  );
}

/**
 * The credentials: `{ token }` from `tokenOverride` when set (the sandbox and local
 * development: `GITHUB_TOKEN`), otherwise from the secret `secretArn`, cached by Powertools for
 * five minutes so a warm Lambda does not call Secrets Manager per request. Never logged.
 */
export async function getGitHubCredentials(source: {
  secretArn?: string | undefined;
  tokenOverride?: string | undefined;
  /** Injected in tests; @default `readJsonSecret` (Secrets Manager, 300 s cache). */
  readSecret?: (arn: string) => Promise<unknown>;
}): Promise<GitHubCredentials> {
  if (source.tokenOverride) return { token: source.tokenOverride };
  const arn = source.secretArn;
  if (!arn) throw new MissingGitHubCredentialsError();
  const read = source.readSecret ?? ((secretArn: string) => readJsonSecret(secretArn));
  const parsed = GitHubCredentials.safeParse(await read(arn));
  if (!parsed.success) throw new InvalidSecretError(arn, { cause: parsed.error });
  return parsed.data;
}

class MissingGitHubCredentialsError extends Error {
  override readonly name = 'MissingGitHubCredentialsError';
  constructor() {
    super('no GitHub credentials: set GITHUB_SECRET_ARN (or GITHUB_TOKEN outside AWS)');
  }
}

/**
 * The gzipped tarball of commit `sha` (`GET /repos/{owner}/{repo}/tarball/{ref}`; GitHub
 * answers with a redirect to codeload, which fetch follows).
 */
export async function downloadTarball(
  octokit: Octokit,
  repository: RepositoryCoordinates,
  sha: string,
): Promise<Uint8Array> {
  const response = await octokit.rest.repos.downloadTarballArchive({ ...repository, ref: sha });
  const data: unknown = response.data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (data instanceof Uint8Array) return data;
  throw new UnexpectedTarballError(`${repository.owner}/${repository.repo}@${sha}`, typeof data);
}

/** GitHub answered a tarball request with something that is not bytes (an HTML page, JSON): nothing to unpack. */
export class UnexpectedTarballError extends Error {
  override readonly name = 'UnexpectedTarballError';
  constructor(
    readonly ref: string,
    readonly got: string,
  ) {
    super(`the tarball of ${ref} came back as ${got}, not bytes`);
  }
}
