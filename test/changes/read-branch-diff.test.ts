import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineChecksOf } from '../../lambdas/builds/define-checks.ts';
import { readBranchDiff } from '../../lambdas/changes/read-branch-diff.ts';
import { startTestGitHub, type TestGitHub } from '../local/github-harness.ts';

/**
 * The facts a guard decides on, read through Octokit from the sandbox's GitHub: each file's
 * status, old path and mode on both sides, against the merge base.
 */

const repository = { owner: 'acme', repo: 'facts' };
let gh: TestGitHub;
let mainSha: string;

beforeAll(async () => {
  gh = await startTestGitHub();
  const record = await gh.emulator.store.createRepository({
    owner: repository.owner,
    name: repository.repo,
    files: {
      'README.md': '# facts\nmore than a line\nand another\n',
      'src/a.ts': 'export const a = 1;\n',
      'run.sh': 'echo\n',
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'package-lock.json': '{}',
    },
  });
  mainSha = (await record.git.resolveCommit('main')) ?? '';
});
afterAll(() => gh.close());

async function branch(
  name: string,
  tree: { path: string; mode: '100644' | '100755' | '120000'; content?: string; sha?: null }[],
) {
  const { data: parent } = await gh.octokit.rest.git.getCommit({ ...repository, commit_sha: mainSha });
  const { data: created } = await gh.octokit.rest.git.createTree({
    ...repository,
    base_tree: parent.tree.sha,
    tree: tree.map((e) => ({ ...e, type: 'blob' as const })),
  });
  const { data: commit } = await gh.octokit.rest.git.createCommit({
    ...repository,
    message: name,
    tree: created.sha,
    parents: [mainSha],
  });
  await gh.octokit.rest.git.createRef({ ...repository, ref: `refs/heads/${name}`, sha: commit.sha });
  return commit.sha;
}

describe('reading what a work branch changed', () => {
  it('gives each file its status, old path and modes, from the merge base to the head', async () => {
    const head = await branch('agents/facts', [
      { path: 'README.md', mode: '100644', sha: null },
      { path: '.GitHub/README.md', mode: '100644', content: '# facts\nmore than a line\nand another\n' },
      { path: 'docs/link', mode: '120000', content: '/etc/passwd' },
      { path: 'run.sh', mode: '100755', content: 'echo\n' },
      { path: 'src/a.ts', mode: '100644', content: 'export const a = 2;\n' },
    ]);
    const diff = await readBranchDiff(gh.octokit, repository, 'main', 'agents/facts');
    expect(diff).toMatchObject({ baseSha: mainSha, headSha: head, incomplete: false });
    const byPath = Object.fromEntries(diff.files.map((f) => [f.path, f]));
    expect(byPath['.GitHub/README.md']).toMatchObject({
      status: 'renamed',
      previousPath: 'README.md',
      mode: '100644',
    });
    expect(byPath['docs/link']).toMatchObject({ status: 'added', mode: '120000' });
    expect(byPath['run.sh']).toMatchObject({ status: 'changed', mode: '100755', previousMode: '100644' });
    expect(byPath['src/a.ts']).toMatchObject({ status: 'modified', mode: '100644', previousMode: '100644' });
    expect(byPath['src/a.ts']?.patch).toContain('+export const a = 2;');
  });

  it('finds nothing changed on a branch at the base', async () => {
    await gh.octokit.rest.git.createRef({ ...repository, ref: 'refs/heads/agents/empty', sha: mainSha });
    const diff = await readBranchDiff(gh.octokit, repository, 'main', 'agents/empty');
    expect(diff).toEqual({ baseSha: mainSha, headSha: mainSha, files: [], incomplete: false });
  });
});

describe('defining the checks from the base commit, through GitHub', () => {
  it("runs the base's scripts and refuses the ones the branch changed, with the base commit named", async () => {
    await branch('agents/echo', [
      { path: 'package.json', mode: '100644', content: JSON.stringify({ scripts: { test: 'echo ok' } }) },
    ]);
    const defined = await defineChecksOf(gh.octokit, repository, {
      conversationId: 'c',
      branch: 'agents/echo',
      commands: { lint: 'npx biome check .' },
    });
    expect(defined.baseSha).toBe(mainSha);
    const byName = Object.fromEntries(defined.checks.map((c) => [c.name, c]));
    expect(byName.install?.refused).toContain('changes package.json');
    expect(byName.test?.refused).toContain(
      `changes "test" in package.json: the check is defined by the base commit ${mainSha.slice(0, 7)}`,
    );
    expect(byName.lint).toMatchObject({ command: 'npx biome check .', source: { type: 'config' } });
    expect(byName.typecheck?.skipped).toBeDefined();
    // The install is refused, so each build's INSTALL phase fails; only lint has a command to run.
    expect(defined.builds.map((b) => b.check)).toEqual(['lint']);
    expect(defined.builds[0]?.sourceVersion).toBe(defined.headSha);
    expect(spec(defined.builds[0]).phases.install.commands).toEqual([
      `echo 'Refused: the branch changes package.json: dependencies and install scripts are defined by the base commit ${mainSha.slice(0, 7)}, and the build installs nothing an agent chose'; exit 1`,
    ]);
  });

  it('defines the base build by the base itself: nothing is refused there', async () => {
    const defined = await defineChecksOf(gh.octokit, repository, {
      conversationId: 'c',
      branch: mainSha,
      base: mainSha,
      commands: {},
    });
    const byName = Object.fromEntries(defined.checks.map((c) => [c.name, c]));
    expect(byName.install).toMatchObject({
      command: 'npm ci --no-audit --no-fund',
      source: { type: 'base', sha: mainSha },
    });
    expect(byName.test?.command).toMatch(/^sh -c '/);
  });
});

describe('the builds the defined checks start', () => {
  const webshop = { test: 'tsx --test test/*.test.ts', typecheck: 'tsc --noEmit -p tsconfig.json' };
  const NODE_JUNIT =
    '--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=.check-junit.xml';

  /** The checks defined at the head of a new repository holding `files`, which is also the base. */
  async function defineAt(
    name: string,
    files: Record<string, string>,
    commands: Record<string, string> = {},
  ) {
    const record = await gh.emulator.store.createRepository({ owner: repository.owner, name, files });
    const head = (await record.git.resolveCommit('main')) ?? '';
    const at = { owner: repository.owner, repo: name };
    return defineChecksOf(gh.octokit, at, { conversationId: 'c', branch: head, base: head, commands });
  }

  it('starts one build per check that runs, each of the head commit, the install first, the check last', async () => {
    const manifest = { scripts: webshop, devDependencies: { typescript: '5.9.3' } };
    const defined = await defineAt(
      'webshop',
      { 'package.json': JSON.stringify(manifest) },
      { lint: 'biome check .' },
    );
    const builds = defined.builds;
    expect(builds.map((b) => b.check)).toEqual(['typecheck', 'lint', 'test']);
    expect(builds[2]?.sourceVersion).toBe(defined.headSha);
    expect(spec(builds[2]).phases.install.commands).toEqual(['npm install --no-audit --no-fund']);
    expect(spec(builds[2]).phases.build?.commands.at(-1)).toBe(
      `sh -c 'tsx --test ${NODE_JUNIT} test/*.test.ts'`,
    );
    // The report is a CodeBuild report group of the test build only.
    expect(spec(builds[2]).reports).toEqual({
      tests: { files: ['.check-junit.xml'], 'file-format': 'JUNITXML' },
    });
    expect(spec(builds[0]).reports).toBeUndefined();
  });

  it('runs the install alone when no check runs, and nothing when nothing is defined', async () => {
    const manifest = { scripts: {}, devDependencies: { typescript: '5.9.3' } };
    const alone = await defineAt('no-checks', { 'package.json': JSON.stringify(manifest) });
    expect(alone.builds.map((b) => b.check)).toEqual(['install']);
    const none = await defineAt('no-package', { 'README.md': '# no package\n' });
    expect(none.checks.find((c) => c.name === 'install')?.skipped).toContain('has no package.json');
    expect(none.builds).toEqual([]);
  });
});

/** A build's buildspec, parsed. */
function spec(build: { buildspec: string } | undefined): {
  phases: { install: { commands: string[] }; build?: { commands: string[] } };
  reports?: unknown;
} {
  return JSON.parse(build?.buildspec ?? '{}');
}
