import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { restoreEnvironment } from '../support/environment.ts';
import { freshModuleTestFiles, isolatedTestFiles, workerSandboxTestFiles } from '../support/isolation.ts';

/**
 * Where vitest.config.ts runs a test file is read from what the file (and the helpers under
 * `test/` it imports) does: a repository of small files, one per rule.
 */

const root = mkdtempSync(join(tmpdir(), 'test-placement-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const files: Record<string, string> = {
  'test/plain.test.ts': "import { it } from 'vitest';\nit('adds', () => {});\n",
  'test/env.test.ts': "process.env.TABLE_NAME = 'x';\n",
  'test/handler.test.ts': "import { handler } from '../lambdas/handlers/router.ts';\n",
  'test/spy.test.ts': "vi.spyOn(console, 'log');\n",
  'test/mock.test.ts': "vi.mock('node:fs');\n",
  'test/timers.test.ts': 'vi.useFakeTimers();\n',
  'test/replaced-env.test.ts': 'process.env = { ...saved };\n',
  'test/asked.test.ts': '// @vitest-isolate: for its place in the run\n',
  'test/via-helper.test.ts': "import { start } from './support/private-sandbox.ts';\n",
  'test/support/private-sandbox.ts': "export { startSandbox as start } from '../../local/sandbox.ts';\n",
  'test/worker-sandbox.test.ts': "import { workerSandbox } from './support/sandbox.ts';\n",
  'test/worker-sandbox-env.test.ts':
    "import { workerSandbox } from './support/sandbox.ts';\nprocess.env.X = '1';\n",
  'test/support/sandbox.ts': "import '../../local/sandbox.ts';\n",
  'test/type-only.test.ts': "import type { Sandbox } from '../local/sandbox.ts';\n",
  'test/named.test.ts':
    "// As lambdas/handlers/router.ts does:\nconst entry = 'lambdas/handlers/router.ts';\n",
  'test/later-handler.test.ts': "const { handler } = await import('../lambdas/handlers/router.ts');\n",
  'test/worker-sandbox-later-handler.test.ts':
    "import { workerSandbox } from './support/sandbox.ts';\nconst { handler } = await import('../lambdas/handlers/router.ts');\n",
  'test/worker-sandbox-handler.test.ts':
    "import { workerSandbox } from './support/sandbox.ts';\nimport { handler } from '../lambdas/handlers/router.ts';\n",
};
for (const [path, text] of Object.entries(files)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('where a test file runs', () => {
  it('gives a process of its own only to what a module reset cannot undo', () => {
    expect(isolatedTestFiles(root)).toEqual([
      'test/asked.test.ts',
      'test/mock.test.ts',
      'test/replaced-env.test.ts',
      'test/timers.test.ts',
    ]);
  });

  it('runs files that set the environment, load a handler, start a sandbox or spy in warm workers after a module reset', () => {
    expect(freshModuleTestFiles(root)).toEqual([
      'test/env.test.ts',
      'test/handler.test.ts',
      'test/later-handler.test.ts',
      'test/spy.test.ts',
      'test/via-helper.test.ts',
      'test/worker-sandbox-env.test.ts',
      'test/worker-sandbox-handler.test.ts',
    ]);
  });

  it("gives the worker's sandbox project the files that touch nothing else, or load a handler only with import()", () => {
    expect(workerSandboxTestFiles(root)).toEqual([
      'test/worker-sandbox-later-handler.test.ts',
      'test/worker-sandbox.test.ts',
    ]);
  });

  it('counts what a file loads, not what it names: a type import or a path in a string or comment loads nothing', () => {
    const placed = [
      ...isolatedTestFiles(root),
      ...freshModuleTestFiles(root),
      ...workerSandboxTestFiles(root),
    ];
    expect(placed).not.toContain('test/type-only.test.ts');
    expect(placed).not.toContain('test/named.test.ts');
  });
});

describe('putting the environment back after a file', () => {
  it('restores names and values in the same object, which vi.stubEnv and import.meta.env hold', () => {
    const env = process.env;
    const saved = { ...process.env };
    process.env.TEST_PLACEMENT_ADDED = 'added';
    delete process.env.PATH;

    restoreEnvironment(saved);

    expect(process.env).toBe(env);
    expect(process.env.TEST_PLACEMENT_ADDED).toBeUndefined();
    expect(process.env.PATH).toBe(saved.PATH);
  });
});
