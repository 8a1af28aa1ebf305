import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGitHub, type TestGitHub } from './github-harness.ts';
import { assertMatchesSchema } from './github-openapi.ts';

/**
 * The compare API's files as GitHub lists them: a rename as `renamed` with its
 * `previous_filename`, a mode or type change (a file made executable, a file replaced by a
 * symbolic link) as `changed`, each response checked against GitHub's OpenAPI description.
 */

const owner = 'acme';
const repo = 'cmp';
let gh: TestGitHub;
let mainSha: string;

beforeAll(async () => {
  gh = await startTestGitHub();
  const record = await gh.emulator.store.createRepository({
    owner,
    name: repo,
    files: {
      'README.md': '# cmp\n',
      'src/a.ts': 'export const a = 1;\nexport const aa = 11;\nexport const aaa = 111;\n',
      'scripts/run.sh': 'echo run\n',
      'docs/guide.md': 'the guide\n',
    },
  });
  mainSha = (await record.git.resolveCommit('main')) ?? '';
});
afterAll(() => gh.close());

type Entry = { path: string; mode: '100644' | '100755' | '120000'; content?: string; sha?: null };

async function branchWith(name: string, entries: Entry[]): Promise<void> {
  const { data: parent } = await gh.octokit.rest.git.getCommit({ owner, repo, commit_sha: mainSha });
  const { data: tree } = await gh.octokit.rest.git.createTree({
    owner,
    repo,
    base_tree: parent.tree.sha,
    tree: entries.map((e) => ({ ...e, type: 'blob' as const })),
  });
  const { data: commit } = await gh.octokit.rest.git.createCommit({
    owner,
    repo,
    message: name,
    tree: tree.sha,
    parents: [mainSha],
  });
  await gh.octokit.rest.git.createRef({ owner, repo, ref: `refs/heads/${name}`, sha: commit.sha });
}

async function compare(name: string) {
  const response = await gh.octokit.rest.repos.compareCommitsWithBasehead({
    owner,
    repo,
    basehead: `main...${name}`,
  });
  assertMatchesSchema('GET', '/repos/{owner}/{repo}/compare/{basehead}', 200, response.data);
  return response.data.files ?? [];
}

describe('the GitHub emulator: what a comparison says about each file', () => {
  it('lists a rename as renamed, with the old path as previous_filename', async () => {
    await branchWith('agents/rename', [
      { path: 'src/a.ts', mode: '100644', sha: null },
      {
        path: '.github/workflows/a.ts',
        mode: '100644',
        content: 'export const a = 1;\nexport const aa = 11;\nexport const aaa = 111;\n',
      },
    ]);
    const files = await compare('agents/rename');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({
      status: 'renamed',
      filename: '.github/workflows/a.ts',
      previous_filename: 'src/a.ts',
    });
  });

  it('lists a file made executable as changed, without a patch', async () => {
    await branchWith('agents/mode', [{ path: 'scripts/run.sh', mode: '100755', content: 'echo run\n' }]);
    const files = await compare('agents/mode');
    expect(files.map((f) => [f.filename, f.status])).toEqual([['scripts/run.sh', 'changed']]);
    expect(files[0]?.patch).toBeUndefined();
  });

  it('lists a file replaced by a symbolic link as changed, and a new link as added', async () => {
    await branchWith('agents/link', [
      { path: 'docs/guide.md', mode: '120000', content: '../../etc/passwd' },
      { path: 'docs/more.md', mode: '120000', content: '/etc/shadow' },
    ]);
    const files = Object.fromEntries((await compare('agents/link')).map((f) => [f.filename, f]));
    expect(files['docs/guide.md']?.status).toBe('changed');
    expect(files['docs/more.md']?.status).toBe('added');
  });

  it('keeps added, modified and removed files as they were, each with its own patch', async () => {
    await branchWith('agents/plain', [
      { path: 'README.md', mode: '100644', sha: null },
      {
        path: 'src/a.ts',
        mode: '100644',
        content: 'export const a = 2;\nexport const aa = 11;\nexport const aaa = 111;\n',
      },
      { path: 'src/b.ts', mode: '100644', content: 'export const b = 1;\n' },
    ]);
    const files = Object.fromEntries((await compare('agents/plain')).map((f) => [f.filename, f]));
    expect(files['README.md']).toMatchObject({ status: 'removed', deletions: 1 });
    expect(files['src/a.ts']).toMatchObject({ status: 'modified', additions: 1, deletions: 1 });
    expect(files['src/a.ts']?.patch).toContain('-export const a = 1;\n+export const a = 2;');
    expect(files['src/b.ts']).toMatchObject({
      status: 'added',
      patch: '@@ -0,0 +1 @@\n+export const b = 1;',
    });
  });
});
