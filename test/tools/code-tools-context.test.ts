import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCodeTool } from '../../lambdas/tools/code/run-code-tool.ts';
import type { CodeToolDeps } from '../../lambdas/tools/code/workspace.ts';
import { bugWorkBranch } from '../../lambdas/workflows/bug-investigation/fix/work-branch.ts';
import { type CodeToolsWorld, output, refusal, startCodeToolsWorld } from './code-tools-support.ts';

/**
 * The work branch from the state machine (`ToolInvocation.context.workBranch`): the code
 * tools write and read there instead of `agents/<conversation id>`, and refuse, changing
 * nothing, a branch without the configured prefix, one git would not take, or the default branch.
 */

let world: CodeToolsWorld;
beforeAll(async () => {
  world = await startCodeToolsWorld('context');
});
afterAll(() => world.close());

const call = (tool: string, args: unknown, conversationId: string, workBranch: string, deps?: CodeToolDeps) =>
  runCodeTool({ tool, args, conversationId, context: { workBranch } }, deps ?? world.deps());

/** The work branch conversation `conv-ctx` owns (its id's digest, as the bug workflow names it). */
const OWN = bugWorkBranch('conv-ctx');

describe('the code tools with a work branch from the tool context', () => {
  it('write to and read from the branch the workflow named, not the conversation-id branch', async () => {
    output(await call('write_file', { path: 'notes.md', content: 'fixed\n' }, 'conv-ctx', OWN));

    expect(await world.head(OWN)).toBeDefined();
    expect(await world.head('agents/conv-ctx')).toBeUndefined();
    expect(output(await call('read_file', { path: 'notes.md' }, 'conv-ctx', OWN))).toContain('1\tfixed');
    expect(output(await call('get_diff', {}, 'conv-ctx', OWN))).toContain(
      `${OWN} is 1 commit(s) ahead of main`,
    );
  });

  it.each([
    ['main', /must start with agents\//],
    ['feature/agents/x', /must start with agents\//],
    ['agents/../main', /not a safe branch name/],
    ['agents/bug-1.lock', /not a safe branch name/],
    ['agents/.hidden', /not a safe branch name/],
    ['agents/', /not a safe branch name/],
    ['agents/a b', /not a safe branch name/],
  ])(
    'refuse the branch %j with a clear error, for reads and writes, changing nothing',
    async (branch, reason) => {
      const before = await world.branches();

      const write = refusal(await call('write_file', { path: 'a.txt', content: 'x\n' }, 'conv-bad', branch));
      const read = refusal(await call('read_file', { path: 'README.md' }, 'conv-bad', branch));

      expect(write).toMatch(
        new RegExp(
          `^write_file: writing to branch ${JSON.stringify(branch).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is refused: `,
        ),
      );
      expect(write).toMatch(reason);
      expect(read).toMatch(reason);
      expect(await world.branches()).toEqual(before);
    },
  );

  it("refuse a branch that is the repository's default branch, even with the prefix", async () => {
    // The conversation's own branch, made the default branch by a careless configuration.
    const stable = bugWorkBranch('conv-trap');
    await world.gh.emulator.store.createRepository({
      owner: 'demo',
      name: 'trap-context',
      defaultBranch: stable,
      files: { 'a.txt': 'a\n' },
    });
    const trap = world.deps({ repository: 'demo/trap-context' });
    const headBefore = await world.gh.emulator.store
      .repository('demo', 'trap-context')
      ?.git.ref(`refs/heads/${stable}`);

    expect(
      refusal(await call('write_file', { path: 'a.txt', content: 'b\n' }, 'conv-trap', stable, trap)),
    ).toBe(
      `write_file: writing to branch "${stable}" is refused: it is the repository's default or base branch`,
    );
    expect(
      await world.gh.emulator.store.repository('demo', 'trap-context')?.git.ref(`refs/heads/${stable}`),
    ).toEqual(headBefore);
  });
});
