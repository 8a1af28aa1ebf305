import * as z from 'zod';
import { InvalidCodeToolsConfigurationError } from './errors.ts';
import { RepositoryRef } from './repository.ts';

/**
 * The code tools' Lambda reads its configuration from these environment variables (the stack
 * sets them; the sandbox sets them for the in-process handler). Besides them it reads
 * `TABLE_NAME` (the cost ledger, as every task handler does). An empty variable counts as
 * unset (CloudFormation cannot remove a variable, only empty it), so the branch prefix is never
 * empty: every work branch carries one.
 */
export const CODE_TOOLS_ENV = {
  /** The repository the tools work on, `owner/name` (required). */
  repository: 'CODE_REPOSITORY',
  /** GitHub REST API base URL: `https://api.github.com` (default), `https://HOST/api/v3`, or the sandbox's. */
  githubBaseUrl: 'GITHUB_BASE_URL',
  /** ARN of the Secrets Manager secret with `{ appId, privateKey, installationId }` or `{ token }`. */
  githubSecretArn: 'GITHUB_SECRET_ARN',
  /** A token used instead of the secret (sandbox, local development). Never set in AWS. */
  githubToken: 'GITHUB_TOKEN',
  /** The branch work branches start from and are compared with. Default: the repository's default branch. */
  baseBranch: 'CODE_BASE_BRANCH',
  /** Prefix of every work branch, ending with `/`. Default `agents/`. */
  branchPrefix: 'CODE_BRANCH_PREFIX',
  /** Where tarballs are unpacked. Default `/tmp/code-tools`. */
  cacheDir: 'CODE_CACHE_DIR',
  /** Megabytes of unpacked trees kept before old ones are evicted. Default 300 (of Lambda's 512 MB `/tmp`). */
  cacheMaxMb: 'CODE_CACHE_MAX_MB',
  /** Largest repository tarball accepted, in megabytes (compressed). Default 100. */
  tarballMaxMb: 'CODE_TARBALL_MAX_MB',
  /** Largest file returned by read_file or written by write_file, in bytes. Default 262144 (256 KiB). */
  maxFileBytes: 'CODE_MAX_FILE_BYTES',
  /** Megabytes of text one search_code call reads at most (the files after are named as not searched). Default 64. */
  searchMaxMb: 'CODE_SEARCH_MAX_MB',
} as const;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const BRANCH_PREFIX = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)+$/;

export const CodeToolsConfig = z.object({
  repository: RepositoryRef,
  githubBaseUrl: z.url({ protocol: /^https?$/ }).optional(),
  githubSecretArn: z.string().min(1).optional(),
  githubToken: z.string().min(1).optional(),
  baseBranch: z.string().min(1).optional(),
  branchPrefix: z
    .string()
    .regex(BRANCH_PREFIX, 'expected one or more directory names ending with /, e.g. "agents/"')
    .default('agents/'),
  cacheDir: z.string().startsWith('/').default('/tmp/code-tools'),
  cacheMaxMb: positiveInt(300),
  tarballMaxMb: positiveInt(100),
  maxFileBytes: positiveInt(262_144),
  searchMaxMb: positiveInt(64),
});
export type CodeToolsConfig = z.infer<typeof CodeToolsConfig>;

export function readCodeToolsConfig(env: NodeJS.ProcessEnv = process.env): CodeToolsConfig {
  const raw = Object.fromEntries(
    Object.entries(CODE_TOOLS_ENV)
      .map(([key, name]) => [key, env[name]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = CodeToolsConfig.safeParse(raw);
  if (!parsed.success) {
    throw new InvalidCodeToolsConfigurationError(
      `invalid code tools configuration:\n${z.prettifyError(parsed.error)}`,
      {
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}
