import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BranchMovedError } from '../../lambdas/tools/code/errors.ts';
import { commitChange } from '../../lambdas/tools/code/git-writes.ts';
import { Workspace } from '../../lambdas/tools/code/workspace.ts';
import { type CodeToolsWorld, output, refusal, startCodeToolsWorld } from './code-tools-support.ts';

let world: CodeToolsWorld;
/** Every branch and its head before each test: a refused call must leave them all as they were. */
let before: Map<string, string | undefined>;

async function heads(): Promise<Map<string, string | undefined>> {
  const names = await world.branches();
  return new Map(
    await Promise.all(
      names.map(async (ref) => [ref, await world.head(ref.slice('refs/heads/'.length))] as const),
    ),
  );
}

beforeAll(async () => {
  world = await startCodeToolsWorld();
  // One conversation with a work branch already, so "changes nothing" covers an existing branch too.
  output(await world.call('write_file', { path: 'notes.md', content: 'first\n' }, 'conv-owner'));
});
afterAll(() => world.close());
beforeEach(async () => {
  before = await heads();
});

async function expectNothingChanged() {
  expect(await heads()).toEqual(before);
}

describe('the code tools refuse bad input with a clear error and change nothing', () => {
  it.each([
    ['../README.md', /outside the repository \(\.\.\/\)/],
    ['src/../../etc/passwd', /outside the repository/],
    ['/etc/passwd', /absolute paths are not allowed/],
    ['.git/config', /the \.git directory is not part of the repository/],
    ['src/cart.ts\0.png', /NUL byte/],
  ])('read_file refuses the path %j', async (path, reason) => {
    expect(refusal(await world.call('read_file', { path }, 'conv-owner'))).toMatch(reason);
  });

  it.each([
    [
      'escape-relative',
      /escape-relative is a symbolic link to \.\.\/\.\.\/\.\.\/etc\/passwd, outside the repository/,
    ],
    ['escape-absolute', /escape-absolute is a symbolic link to \/etc\/passwd, outside the repository/],
    ['escape-dir/etc/passwd', /escape-dir is a symbolic link to \.\.\/\.\., outside the repository/],
  ])(
    'read_file refuses %j, which goes through a symbolic link out of the repository',
    async (path, reason) => {
      expect(refusal(await world.call('read_file', { path }, 'conv-owner'))).toMatch(reason);
    },
  );

  it('list_files refuses a directory behind a symbolic link out of the repository', async () => {
    expect(refusal(await world.call('list_files', { path: 'escape-dir' }, 'conv-owner'))).toMatch(
      /outside the repository/,
    );
  });

  it('search_code refuses a glob it cannot read', async () => {
    expect(
      refusal(await world.call('search_code', { pattern: 'x', path_glob: 'src/{a,b' }, 'conv-owner')),
    ).toMatch(/glob "src\/\{a,b" is not valid: a \{ has no matching \}/);
  });

  it('read_file describes a file over the size cap instead of returning it', async () => {
    expect(refusal(await world.call('read_file', { path: 'data/huge.json' }, 'conv-owner'))).toBe(
      'read_file: data/huge.json is not printed: 11.7 KB, .json file, over the 8.0 KB cap. Use search_code to find the lines you need in it.',
    );
  });

  it('read_file describes a binary file instead of returning it', async () => {
    expect(refusal(await world.call('read_file', { path: 'assets/logo.png' }, 'conv-owner'))).toBe(
      'read_file: assets/logo.png is binary (PNG image, 16 B): its content is not printed.',
    );
  });

  it('search_code answers a pattern that backtracks exponentially in JavaScript (RE2, linear in the input)', async () => {
    // (a+)+$ on 20,000 a's and a b: no match, found in one pass over the text.
    expect(
      output(
        await world.call(
          'search_code',
          { pattern: '(a+)+$', regex: true, path_glob: 'evil/*' },
          'conv-owner',
        ),
      ),
    ).toMatch(/^No matches for regular expression "\(a\+\)\+\$" in 1 file\(s\)\.$/m);
    expect(
      output(await world.call('search_code', { pattern: 'a{3}b', regex: true }, 'conv-owner')),
    ).toContain('evil/backtrack.txt:1:');
  });

  it('search_code refuses a regular expression that does not compile', async () => {
    expect(
      refusal(await world.call('search_code', { pattern: '([a-z]', regex: true }, 'conv-owner')),
    ).toMatch(/does not compile: error parsing regexp: missing closing \): `\(\[a-z\]`\.$/);
  });

  it('search_code refuses a backreference with the sentence that says RE2 has none', async () => {
    expect(
      refusal(await world.call('search_code', { pattern: '(a)\\1', regex: true }, 'conv-owner')),
    ).toMatch(/Backreferences \(\\1\) and lookaround .* cannot be searched for: the engine is RE2/);
  });

  it.each([
    ['../outside.txt', /outside the repository/],
    ['/tmp/x', /absolute paths are not allowed/],
    ['.git/hooks/post-checkout', /\.git directory/],
    ['escape-relative', /it is a symbolic link to \.\.\/\.\.\/\.\.\/etc\/passwd; write its target instead/],
    ['escape-dir/x.txt', /escape-dir is a symbolic link; give the path without links/],
    ['src', /it is a directory/],
    ['src/cart.ts/inner.ts', /src\/cart.ts is a file, not a directory/],
  ])('write_file refuses the path %j', async (path, reason) => {
    expect(refusal(await world.call('write_file', { path, content: 'x\n' }, 'conv-owner'))).toMatch(reason);
    expect(refusal(await world.call('write_file', { path, content: 'x\n' }, 'conv-new'))).toMatch(reason);
    await expectNothingChanged();
  });

  it('write_file refuses text with a NUL byte, whole or through a diff: git would show no diff of it', async () => {
    expect(
      refusal(
        await world.call(
          'write_file',
          { path: 'src/hidden.ts', content: 'export const x = 1;\0\n' },
          'conv-owner',
        ),
      ),
    ).toMatch(
      /src\/hidden\.ts would hold a NUL byte \(character 20\), which makes git treat the file as binary/,
    );
    const diff = '--- a/notes.md\n+++ b/notes.md\n@@ -1 +1 @@\n-first\n+fir\0st\n';
    expect(refusal(await world.call('write_file', { path: 'notes.md', diff }, 'conv-owner'))).toMatch(
      /notes\.md would hold a NUL byte \(character 4\)/,
    );
    await expectNothingChanged();
  });

  it('write_file refuses content over the size cap', async () => {
    expect(
      refusal(await world.call('write_file', { path: 'big.txt', content: 'x'.repeat(9_000) }, 'conv-owner')),
    ).toMatch(/big.txt would have 8.8 KB, over the 8.0 KB cap: nothing was written/);
    await expectNothingChanged();
  });

  it.each([
    ['the default branch', { branch: 'main' }],
    ['another conversation branch', { branch: 'agents/conv-owner' }],
    ['a repository', { repository: 'demo/other' }],
  ])('write_file takes no argument naming %s', async (_what, extra) => {
    const error = refusal(
      await world.call('write_file', { path: 'notes.md', content: 'hijack\n', ...extra }, 'conv-intruder'),
    );
    expect(error).toMatch(/^Invalid arguments for write_file:\n✖ Unrecognized key/);
    await expectNothingChanged();
  });

  it("never writes another conversation's branch: a write goes to the caller's own branch", async () => {
    output(await world.call('write_file', { path: 'notes.md', content: 'intruder\n' }, 'conv-intruder'));
    expect(await world.head('agents/conv-owner')).toBe(before.get('refs/heads/agents/conv-owner'));
    expect(await world.head('main')).toBe(before.get('refs/heads/main'));
    expect(output(await world.call('read_file', { path: 'notes.md' }, 'conv-owner'))).toContain('1\tfirst');
  });

  it('refuses a conversation id that would not be a plain branch name', async () => {
    expect(
      refusal(await world.call('write_file', { path: 'a.txt', content: 'x\n' }, 'x/../../main')),
    ).toMatch(
      /writing to branch "agents\/x\/\.\.\/\.\.\/main" is refused: the conversation id is not a safe branch name/,
    );
    await expectNothingChanged();
  });

  it('refuses to write when the work branch would be the default branch', async () => {
    await world.gh.emulator.store.createRepository({
      owner: 'demo',
      name: 'trap',
      defaultBranch: 'agents/trap',
      files: { 'a.txt': 'a\n' },
    });
    const trap = world.deps({ repository: 'demo/trap' });
    const headBefore = await world.gh.emulator.store
      .repository('demo', 'trap')
      ?.git.ref('refs/heads/agents/trap');
    expect(refusal(await world.call('write_file', { path: 'a.txt', content: 'b\n' }, 'trap', trap))).toBe(
      'write_file: writing to branch "agents/trap" is refused: it is the repository\'s default or base branch',
    );
    expect(
      await world.gh.emulator.store.repository('demo', 'trap')?.git.ref('refs/heads/agents/trap'),
    ).toEqual(headBefore);
  });

  it('refuses a diff that does not apply, naming the hunk and the line', async () => {
    const diff =
      '@@ -4,2 +4,2 @@\n-  let total = 0;\n+  let total = 1;\n   for (const item of items) sum += item.price;\n';
    expect(refusal(await world.call('write_file', { path: 'src/cart.ts', diff }, 'conv-owner'))).toBe(
      'write_file: the diff does not apply to "src/cart.ts", nothing was written: hunk 1 (@@ -4): its lines are found nowhere in the file; ' +
        'at line 4 it expects "  let total = 0;" but the file has "  let sum = 0;". Read the file again and make the diff against its current content.',
    );
    expect(refusal(await world.call('write_file', { path: 'src/cart.ts', diff }, 'conv-new'))).toMatch(
      /does not apply/,
    );
    await expectNothingChanged();
  });

  it('refuses a diff whose header names another file', async () => {
    const diff = '--- a/src/item.ts\n+++ b/src/item.ts\n@@ -1 +1 @@\n-x\n+y\n';
    expect(refusal(await world.call('write_file', { path: 'src/cart.ts', diff }, 'conv-owner'))).toMatch(
      /its header names src\/item.ts, not src\/cart.ts/,
    );
    await expectNothingChanged();
  });

  it('refuses a diff that creates a file that exists, or deletes one', async () => {
    const create = '--- /dev/null\n+++ b/src/cart.ts\n@@ -0,0 +1 @@\n+new\n';
    expect(
      refusal(await world.call('write_file', { path: 'src/cart.ts', diff: create }, 'conv-owner')),
    ).toMatch(/it creates the file \(--- \/dev\/null\), which already exists/);
    const remove = '--- a/README.md\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-# Webshop\n-\n-A small shop.\n';
    expect(
      refusal(await world.call('write_file', { path: 'README.md', diff: remove }, 'conv-owner')),
    ).toMatch(/use delete_file/);
    await expectNothingChanged();
  });

  it('refuses a write with both content and diff, or neither', async () => {
    expect(
      refusal(
        await world.call(
          'write_file',
          { path: 'a.txt', content: 'a', diff: '@@ -0,0 +1 @@\n+a\n' },
          'conv-owner',
        ),
      ),
    ).toMatch(/exactly one of content .* or diff/);
    expect(refusal(await world.call('write_file', { path: 'a.txt' }, 'conv-owner'))).toMatch(
      /exactly one of content/,
    );
    await expectNothingChanged();
  });

  it('refuses to delete what is not there, or a directory', async () => {
    expect(refusal(await world.call('delete_file', { path: 'nope.ts' }, 'conv-owner'))).toBe(
      'delete_file: no file at "nope.ts": nothing to delete',
    );
    expect(refusal(await world.call('delete_file', { path: 'src' }, 'conv-owner'))).toMatch(
      /it is a directory/,
    );
    await expectNothingChanged();
  });

  it('refuses a commit when the branch moved since its parent was read (no force)', async () => {
    const deps = world.deps();
    const workspace = new Workspace(deps, 'conv-owner');
    const stale = before.get('refs/heads/agents/conv-owner') as string;
    output(await world.call('write_file', { path: 'notes.md', content: 'second\n' }, 'conv-owner'));
    const moved = await world.head('agents/conv-owner');
    const change = { path: 'notes.md', content: new TextEncoder().encode('lost?\n') };
    await expect(
      commitChange(workspace, { sha: stale, branchExists: true }, change, 'stale'),
    ).rejects.toThrow(BranchMovedError);
    expect(await world.head('agents/conv-owner')).toBe(moved);
  });
});
