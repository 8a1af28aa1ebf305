import * as z from 'zod';

/**
 * The repository the code tools work on, and how they read GitHub's answers. Kept here, not in
 * the GitHub adapter, so the tools import nothing from `lambdas/adapters` (which imports the
 * tools' contract): no cycle between the two folders.
 */

/**
 * `owner/name` as GitHub allows them: an owner of letters, digits and single hyphens (at most
 * 39), a name of letters, digits, `.`, `_`, `-` (at most 100, not `.` or `..`).
 */
export const RepositoryRef = z
  .string()
  .regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}\/[A-Za-z0-9._-]{1,100}$/,
    'expected a repository as owner/name, e.g. "demo/webshop"',
  )
  .refine((value) => !['.', '..'].includes(value.split('/')[1] ?? ''), 'a repository cannot be named . or ..')
  .transform((value) => {
    const [owner, repo] = value.split('/') as [string, string];
    return { owner, repo };
  });
export type RepositoryRef = z.infer<typeof RepositoryRef>;

/** The HTTP status of an Octokit `RequestError`, or undefined for anything else. */
export function githubStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  const { status } = error as { status: unknown };
  return typeof status === 'number' ? status : undefined;
}
