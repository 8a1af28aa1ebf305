import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeToolDeps } from '../../lambdas/tools/code/workspace.ts';
import { DEMO_BUG, seedDemoWebshop } from '../../local/github/demo-webshop.ts';
import { type CodeToolsWorld, output, startCodeToolsWorld } from './code-tools-support.ts';

/** The name of the sandbox's demo repository (stated here, not imported: the value is what this test checks). */
const DEMO_REPO = 'webshop';

/** The owner of the sandbox's demo repository (stated here, not imported: the value is what this test checks). */
const DEMO_OWNER = 'demo';

/** The sandbox's demo repository, worked on as the bug investigator will: find the planted bug, fix it on the work branch. */
let world: CodeToolsWorld;
let deps: CodeToolDeps;
let mainBefore: string | undefined;

beforeAll(async () => {
  world = await startCodeToolsWorld('tools-fixture');
  const demo = await seedDemoWebshop(world.gh.emulator.store);
  mainBefore = (await demo.git.ref('refs/heads/main'))?.sha;
  deps = world.deps({ repository: `${DEMO_OWNER}/${DEMO_REPO}`, maxFileBytes: 262_144 });
});
afterAll(() => world.close());

const conversationId = 'bug-investigation-C0BUGS-1732190000-000100';

describe('the code tools on the demo web shop', () => {
  it('find the planted bug as file:line', async () => {
    const text = output(
      await world.call(
        'search_code',
        { pattern: 'vatFor\\((subtotal|net)', regex: true, path_glob: 'src/**' },
        conversationId,
        deps,
      ),
    );
    expect(text).toContain(`${DEMO_BUG.file}:${DEMO_BUG.line}:`);
  });

  it('fix it with a diff on the conversation branch, leaving main untouched', async () => {
    const line = output(
      await world.call(
        'read_file',
        { path: DEMO_BUG.file, start_line: DEMO_BUG.line, end_line: DEMO_BUG.line },
        conversationId,
        deps,
      ),
    )
      .split('\n')[1]
      ?.split('\t')[1] as string;
    expect(line).toContain('vatFor(subtotal');
    const diff = `@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${line}\n+${line.replace('vatFor(subtotal', 'vatFor(net')}\n`;
    output(
      await world.call(
        'write_file',
        { path: DEMO_BUG.file, diff, message: 'Charge VAT on the discounted amount' },
        conversationId,
        deps,
      ),
    );

    const changes = output(await world.call('get_diff', {}, conversationId, deps));
    expect(changes).toContain(
      `agents/${conversationId} is 1 commit(s) ahead of main and 0 behind; 1 file(s) changed.`,
    );
    expect(changes).toContain(`--- modified ${DEMO_BUG.file} (+1 -1)`);
    expect(changes).toContain(`+${line.replace('vatFor(subtotal', 'vatFor(net')}`);
    expect(
      (await world.gh.emulator.store.repository(DEMO_OWNER, DEMO_REPO)?.git.ref('refs/heads/main'))?.sha,
    ).toBe(mainBefore);
  });
});
