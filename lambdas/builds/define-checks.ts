import type { Octokit } from '@octokit/rest';
import * as z from 'zod';
import { BUILT_CHECKS, checkBuildspec, type InstallStep } from './buildspec.ts';
import { CheckDefinition, defineChecks, type PackageFacts, packageFacts } from './check-definitions.ts';
import { CheckCommands } from './contract.ts';

/**
 * "Define checks", before a checks build: the merge base of the work branch and its base
 * branch (GitHub's compare API), the base commit's and the branch's `package.json` and
 * lockfile, and from them each check's command (check-definitions.ts) as the buildspecs the
 * builds run instead of the project's (`BuildspecOverride`): one build per check that runs, of
 * the head commit read here (buildspec.ts). So the branch under test never decides what it is
 * judged by, and no check runs where another one ran.
 */

export const DefineChecksInput = z.object({
  conversationId: z.string().min(1),
  /** The work branch to build (or a commit sha: the base build names the base commit). */
  branch: z.string().min(1),
  /** The base to compare with (a commit sha or branch). @default the repository's default branch */
  base: z.string().min(1).optional(),
  /** The configured commands (`build.commands` of the workflow's settings). */
  commands: CheckCommands.prefault({}),
});
export type DefineChecksInput = z.infer<typeof DefineChecksInput>;

/** One checks build to start: its check, the commit it builds, its buildspec. */
export const ChecksBuild = z.object({
  /** The check it runs, or `install` for the install alone. */
  check: z.enum(['install', ...BUILT_CHECKS]),
  /** The commit built: the head the checks were defined for, never a branch that may move. */
  sourceVersion: z.string(),
  /** The buildspec, as JSON text (valid YAML) for StartBuild's `buildspecOverride`. */
  buildspec: z.string().max(10_000),
});
export type ChecksBuild = z.infer<typeof ChecksBuild>;

export const DefinedChecks = z.object({
  /** The base commit the checks are defined by (the merge base). */
  baseSha: z.string(),
  /** The branch's head when the checks were defined. */
  headSha: z.string(),
  /** One build per check that runs (the install alone when none does). */
  builds: z.array(ChecksBuild).max(BUILT_CHECKS.length),
  checks: z.array(CheckDefinition),
});
export type DefinedChecks = z.infer<typeof DefinedChecks>;

type Repository = { owner: string; repo: string };

/** The lockfiles npm reads on install (it reads `yarn.lock` too, to inform its resolution). */
const NPM_LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock'] as const;

/**
 * A commit's `package.json` and npm lockfiles, from its root tree (one listing, no probing for
 * files that may not be there), `package.json`'s text from its blob. A `package.json` that is a
 * symbolic link is unreadable: the build would follow it anywhere.
 */
export async function readPackageFacts(
  octokit: Octokit,
  repository: Repository,
  commitSha: string,
): Promise<PackageFacts> {
  const { data: commit } = await octokit.rest.git.getCommit({ ...repository, commit_sha: commitSha });
  const { data: tree } = await octokit.rest.git.getTree({ ...repository, tree_sha: commit.tree.sha });
  const blob = (path: string) => tree.tree.find((e) => e.path === path && e.type === 'blob');
  const lockfiles: Record<string, string> = {};
  for (const path of NPM_LOCKFILES) {
    const sha = blob(path)?.sha;
    if (sha !== undefined) lockfiles[path] = sha;
  }
  const manifest = blob('package.json');
  if (manifest?.sha === undefined) return packageFacts(undefined, lockfiles);
  if (manifest.mode === '120000')
    return {
      ...packageFacts(undefined, lockfiles),
      present: true,
      manifestSha: manifest.sha,
      unreadable: 'package.json is a symbolic link',
    };
  const { data } = await octokit.rest.git.getBlob({ ...repository, file_sha: manifest.sha });
  const text = Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
  return packageFacts({ text, sha: manifest.sha }, lockfiles);
}

export async function defineChecksOf(
  octokit: Octokit,
  repository: Repository,
  input: DefineChecksInput,
): Promise<DefinedChecks> {
  const base = input.base ?? (await octokit.rest.repos.get(repository)).data.default_branch;
  const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
    ...repository,
    basehead: `${base}...${input.branch}`,
    per_page: 1,
  });
  const baseSha = data.merge_base_commit.sha;
  const headSha = /^[0-9a-f]{40}$/.test(input.branch)
    ? input.branch
    : (await octokit.rest.repos.getBranch({ ...repository, branch: input.branch })).data.commit.sha;
  const [baseFacts, branchFacts] = await Promise.all([
    readPackageFacts(octokit, repository, baseSha),
    readPackageFacts(octokit, repository, headSha),
  ]);
  const checks = defineChecks({ commands: input.commands, baseSha, base: baseFacts, branch: branchFacts });
  return { baseSha, headSha, builds: checksBuilds(checks, headSha), checks };
}

/** The builds the defined checks need: one per check with a command, or the install alone. */
function checksBuilds(checks: readonly CheckDefinition[], headSha: string): ChecksBuild[] {
  const install: InstallStep = checks.find((c) => c.name === 'install') ?? { skipped: 'not defined' };
  const running = checks.filter(
    (c): c is CheckDefinition & { name: (typeof BUILT_CHECKS)[number]; command: string } =>
      c.name !== 'install' && c.command !== undefined,
  );
  const build = (check: ChecksBuild['check'], command?: string, junitReport?: boolean): ChecksBuild => ({
    check,
    sourceVersion: headSha,
    buildspec: JSON.stringify(checkBuildspec(install, command, { junitReport })),
  });
  if (running.length === 0)
    return install.command === undefined && install.refused === undefined ? [] : [build('install')];
  return running.map((c) => build(c.name, c.command, c.junitReport));
}
