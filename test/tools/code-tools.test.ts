import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseBranchMissingError } from '../../lambdas/tools/code/errors.ts';
import { codeTools } from '../../lambdas/tools/code/tools.ts';
import { CART_TS, type CodeToolsWorld, output, startCodeToolsWorld } from './code-tools-support.ts';

let world: CodeToolsWorld;
const size = (text: string) => `${Buffer.byteLength(text)} B`;
const FIXED_CART = CART_TS.replace('item.price', 'item.price * item.quantity');
let mainSha: string | undefined;

beforeAll(async () => {
  world = await startCodeToolsWorld();
  mainSha = await world.head('main');
});
afterAll(() => world.close());

describe('the code tools against the GitHub emulator, through Octokit as a GitHub App', () => {
  it('offers six tools, each with an object JSON schema for its arguments', () => {
    expect(Object.keys(codeTools)).toEqual([
      'list_files',
      'read_file',
      'search_code',
      'write_file',
      'delete_file',
      'get_diff',
    ]);
    for (const spec of Object.values(codeTools)) {
      expect(spec.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    expect(codeTools.read_file.inputSchema).toMatchObject({ required: ['path'] });
  });

  it('lists the base branch files with their sizes, and the links', async () => {
    const text = output(await world.call('list_files', {}, 'conv-list'));
    const lines = text.split('\n');
    expect(lines[0]).toBe(`[main at ${mainSha?.slice(0, 12)}] 12 path(s)`);
    expect(lines).toContain(`src/cart.ts  (${size(CART_TS)})`);
    expect(lines).toContain('docs/readme-link.md -> ../README.md  (symbolic link)');
  });

  it('lists a directory, filtered by a glob', async () => {
    const text = output(await world.call('list_files', { path: 'src', glob: '*.ts' }, 'conv-list'));
    expect(text.split('\n').slice(1)).toEqual([`src/cart.ts  (${size(CART_TS)})`, 'src/item.ts  (63 B)']);
  });

  it('caps the listing and says how to narrow it', async () => {
    const text = output(await world.call('list_files', { max_results: 2 }, 'conv-list'));
    expect(text.split('\n')).toHaveLength(4);
    expect(text).toContain('[10 more not shown: narrow with path or glob]');
  });

  it('reads a file with numbered lines', async () => {
    const text = output(await world.call('read_file', { path: 'src/cart.ts' }, 'conv-read'));
    const lines = text.split('\n');
    expect(lines[0]).toBe(`[main at ${mainSha?.slice(0, 12)}] src/cart.ts: 7 lines, ${size(CART_TS)}`);
    expect(lines[3]).toBe('3\texport function total(items: Item[]): number {');
    expect(lines).toHaveLength(8);
  });

  it('reads a line range and says what follows', async () => {
    const text = output(
      await world.call('read_file', { path: 'src/cart.ts', start_line: 4, end_line: 5 }, 'conv-read'),
    );
    expect(text.split('\n').slice(1)).toEqual([
      '4\t  let sum = 0;',
      '5\t  for (const item of items) sum += item.price;',
      '[2 more lines after line 5]',
    ]);
  });

  it('reads through a symbolic link that stays inside the repository', async () => {
    const text = output(await world.call('read_file', { path: 'docs/src/item.ts' }, 'conv-read'));
    expect(text).toContain('(via symbolic link: src/item.ts)');
    expect(text).toContain('2\t  price: number;');
  });

  it('finds a literal string and prints file:line with context', async () => {
    const text = output(
      await world.call('search_code', { pattern: 'item.price', context_lines: 1 }, 'conv-search'),
    );
    expect(text.split('\n').slice(1, 4)).toEqual([
      'src/cart.ts-4-  let sum = 0;',
      'src/cart.ts:5:  for (const item of items) sum += item.price;',
      'src/cart.ts-6-  return sum;',
    ]);
  });

  it('finds a regular expression within a path glob', async () => {
    const text = output(
      await world.call(
        'search_code',
        { pattern: '^export (function|interface) \\w+', regex: true, path_glob: 'src/**' },
        'conv-search',
      ),
    );
    expect(text).toContain('src/cart.ts:3:export function total');
    expect(text).toContain('src/item.ts:1:export interface Item {');
    expect(text).not.toContain('test/');
  });

  it('says there are no changes before the first write', async () => {
    expect(output(await world.call('get_diff', {}, 'conv-write'))).toBe(
      'No changes yet: the work branch agents/conv-write does not exist; the first write_file or delete_file creates it from main.',
    );
  });

  it('writes a whole file as a commit on a new work branch made from main, leaving main as it was', async () => {
    const text = output(
      await world.call('write_file', { path: 'src/cart.ts', content: FIXED_CART }, 'conv-write'),
    );
    const branchHead = await world.head('agents/conv-write');
    expect(text).toBe(
      `Committed ${branchHead?.slice(0, 12)} on agents/conv-write (branch created from the base branch): wrote src/cart.ts (7 lines, ${size(FIXED_CART)}).`,
    );
    expect(await world.head('main')).toBe(mainSha);
    const { data: commit } = await world.admin.rest.git.getCommit({
      owner: world.owner,
      repo: world.repo,
      commit_sha: branchHead ?? '',
    });
    expect(commit.parents.map((p) => p.sha)).toEqual([mainSha]);
    expect(commit.message).toBe('Update src/cart.ts');
  });

  it('reads its own write back from the work branch', async () => {
    const text = output(
      await world.call('read_file', { path: 'src/cart.ts', start_line: 5, end_line: 5 }, 'conv-write'),
    );
    expect(text).toContain('[agents/conv-write at ');
    expect(text).toContain('5\t  for (const item of items) sum += item.price * item.quantity;');
  });

  it('applies a unified diff as a second commit on the branch', async () => {
    const before = await world.head('agents/conv-write');
    const diff = [
      '--- a/src/cart.ts',
      '+++ b/src/cart.ts',
      '@@ -3,5 +3,5 @@',
      ' export function total(items: Item[]): number {',
      '-  let sum = 0;',
      '+  let sum = 0; // cents',
      '   for (const item of items) sum += item.price * item.quantity;',
      '   return sum;',
      ' }',
    ].join('\n');
    output(
      await world.call('write_file', { path: 'src/cart.ts', diff, message: 'Count cents' }, 'conv-write'),
    );
    const after = await world.head('agents/conv-write');
    const { data: commit } = await world.admin.rest.git.getCommit({
      owner: world.owner,
      repo: world.repo,
      commit_sha: after ?? '',
    });
    expect(commit.parents.map((p) => p.sha)).toEqual([before]);
    expect(commit.message).toBe('Count cents');
    const text = output(
      await world.call('read_file', { path: 'src/cart.ts', start_line: 4, end_line: 4 }, 'conv-write'),
    );
    expect(text).toContain('4\t  let sum = 0; // cents');
  });

  it('creates a new file, and commits nothing when a write changes nothing', async () => {
    output(
      await world.call(
        'write_file',
        { path: 'src/discount.ts', content: 'export const discount = 0;\n' },
        'conv-write',
      ),
    );
    const head = await world.head('agents/conv-write');
    expect(
      output(
        await world.call(
          'write_file',
          { path: 'src/discount.ts', content: 'export const discount = 0;\n' },
          'conv-write',
        ),
      ),
    ).toMatch(/^No change: src\/discount.ts already has this content/);
    expect(await world.head('agents/conv-write')).toBe(head);
  });

  it('deletes a file on the work branch only', async () => {
    output(await world.call('delete_file', { path: 'README.md' }, 'conv-write'));
    const listing = output(await world.call('list_files', {}, 'conv-write'));
    expect(listing.split('\n')).not.toContain('README.md  (25 B)');
    expect(output(await world.call('list_files', {}, 'conv-other')).split('\n')).toContain(
      'README.md  (25 B)',
    );
  });

  it('shows the work branch against main: its commits and each file patch', async () => {
    const text = output(await world.call('get_diff', {}, 'conv-write'));
    expect(text.split('\n')[0]).toBe(
      'agents/conv-write is 4 commit(s) ahead of main and 0 behind; 3 file(s) changed.',
    );
    expect(text).toContain('commit ');
    expect(text).toContain('Count cents');
    expect(text).toContain('--- modified src/cart.ts (+2 -2)');
    expect(text).toContain('+  let sum = 0; // cents');
    expect(text).toContain('--- added src/discount.ts (+1 -0)');
    expect(text).toContain('--- removed README.md (+0 -3)');
  });

  it('serves reads after its own writes from the cache, without downloading the new commit', async () => {
    const deps = world.deps();
    output(await world.call('read_file', { path: 'src/item.ts' }, 'conv-cache', deps));
    expect(deps.cache.stats).toMatchObject({ misses: 1, derived: 0 });
    output(
      await world.call(
        'write_file',
        { path: 'src/item.ts', content: 'export type Item = { price: number };\n' },
        'conv-cache',
        deps,
      ),
    );
    const text = output(await world.call('read_file', { path: 'src/item.ts' }, 'conv-cache', deps));
    expect(text).toContain('1\texport type Item = { price: number };');
    expect(deps.cache.stats).toMatchObject({ misses: 1, derived: 1 });
    // What the derived tree says is what GitHub's tarball of that commit holds.
    const fresh = world.deps();
    expect(output(await world.call('list_files', {}, 'conv-cache', fresh))).toBe(
      output(await world.call('list_files', {}, 'conv-cache', deps)),
    );
    expect(fresh.cache.stats.misses).toBe(1);
  });

  it('keeps each conversation on its own branch', async () => {
    output(await world.call('write_file', { path: 'notes.md', content: 'mine\n' }, 'conv-a'));
    output(await world.call('write_file', { path: 'notes.md', content: 'yours\n' }, 'conv-b'));
    expect(output(await world.call('read_file', { path: 'notes.md' }, 'conv-a'))).toContain('1\tmine');
    expect(output(await world.call('read_file', { path: 'notes.md' }, 'conv-b'))).toContain('1\tyours');
    expect(await world.branches()).toEqual(
      expect.arrayContaining(['refs/heads/agents/conv-a', 'refs/heads/agents/conv-b', 'refs/heads/main']),
    );
  });

  it('uses a configured prefix and base branch', async () => {
    const deps = world.deps({ branchPrefix: 'bots/fixes/', baseBranch: 'agents/conv-a' });
    const text = output(await world.call('read_file', { path: 'notes.md' }, 'conv-c', deps));
    expect(text).toContain('[agents/conv-a at');
    output(await world.call('write_file', { path: 'notes.md', content: 'from a\n' }, 'conv-c', deps));
    expect(await world.head('bots/fixes/conv-c')).toBeDefined();
  });

  it('fails (a configuration defect, not a tool error) when the base branch does not exist', async () => {
    const deps = world.deps({ baseBranch: 'release/9' });
    await expect(world.call('read_file', { path: 'README.md' }, 'conv-nobase', deps)).rejects.toThrow(
      BaseBranchMissingError,
    );
    await expect(
      world.call('write_file', { path: 'a.txt', content: 'a' }, 'conv-nobase', deps),
    ).rejects.toThrow('the base branch release/9 of demo/webshop does not exist');
  });
});
