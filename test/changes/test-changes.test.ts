import { describe, expect, it } from 'vitest';
import type { BranchDiff, ChangedFile } from '../../lambdas/changes/changed-files.ts';
import { changedFilesSection } from '../../lambdas/changes/changed-files.ts';
import { protectedGate } from '../../lambdas/changes/gate.ts';
import { protectedPaths } from '../../lambdas/changes/protected-paths.ts';
import { testChanges, testChangesLine, testChangesSection } from '../../lambdas/changes/test-changes.ts';

const file = (path: string, status: ChangedFile['status'], patch?: string): ChangedFile => ({
  path,
  status,
  additions: 0,
  deletions: 0,
  ...(patch === undefined ? {} : { patch }),
});
const diff = (files: ChangedFile[]): BranchDiff => ({
  baseSha: 'b'.repeat(40),
  headSha: 'h'.repeat(40),
  files,
  incomplete: false,
});

const weakened = file(
  'test/checkout.test.ts',
  'modified',
  [
    '@@ -10,4 +10,3 @@',
    "   it('charges VAT on the net amount', () => {",
    '-    assert.equal(totals.vat, 7.6);',
    '-    expect(totals.total).toBe(47.77);',
    '+    // checked by hand',
    '   });',
  ].join('\n'),
);

describe('the tests a branch added, changed or deleted', () => {
  it('finds test files by the usual conventions and nothing else', () => {
    const testFilesOf = (path: string) =>
      testChanges(diff([file(path, 'modified')])).map((change) => change.file.path);
    for (const path of [
      'test/a.ts',
      'src/cart.test.ts',
      'pkg/__tests__/x.js',
      'app.spec.tsx',
      'tests/test_cart.py',
      'cart_test.go',
    ])
      expect(testFilesOf(path), path).toEqual([path]);
    for (const path of ['src/checkout.ts', 'docs/testing.md', 'contest.ts'])
      expect(testFilesOf(path), path).toEqual([]);
  });

  it('lists each test file apart with the assertion lines it removes, and a deleted one', () => {
    const changes = testChanges(
      diff([
        file('src/checkout.ts', 'modified', '-  assert(x)'),
        weakened,
        file('test/cart.test.ts', 'removed'),
        file('test/new.test.ts', 'added'),
      ]),
    );
    expect(changes.map((c) => c.file.path)).toEqual([
      'test/checkout.test.ts',
      'test/cart.test.ts',
      'test/new.test.ts',
    ]);
    const section = testChangesSection(changes);
    expect(section).toContain('- `test/checkout.test.ts` (modified), 2 assertion lines removed');
    expect(section).toContain('  - removed: `assert.equal(totals.vat, 7.6);`');
    expect(section).toContain('  - removed: `expect(totals.total).toBe(47.77);`');
    expect(section).toContain('- `test/cart.test.ts` (deleted), every assertion in it removed');
    expect(section).toContain('- `test/new.test.ts` (added)');
    expect(testChangesLine(changes)).toContain(
      '`test/checkout.test.ts` (modified), 2 assertion lines removed',
    );
  });

  it('puts them in the pull request body after the file list, and says nothing when no test changed', () => {
    const body = changedFilesSection(
      diff([weakened]),
      100,
      testChangesSection(testChanges(diff([weakened]))),
    );
    expect(body.indexOf('**Tests the branch added, changed or deleted**')).toBeGreaterThan(
      body.indexOf('- `test/checkout.test.ts` (modified)'),
    );
    expect(testChangesSection(testChanges(diff([file('src/a.ts', 'modified')])))).toBe('');
  });

  it('names them in the approval request of a protected change, before the diff excerpt', () => {
    const verdict = protectedGate(
      diff([file('.github/workflows/ci.yml', 'added', '+on: push'), weakened]),
      protectedPaths({ add: [], remove: [] }),
      'approve',
    );
    expect(verdict.approvalText).toContain(
      'Tests the branch added, changed or deleted: `test/checkout.test.ts` (modified), 2 assertion lines removed',
    );
    expect(verdict.approvalText.indexOf('Tests the branch')).toBeLessThan(
      verdict.approvalText.indexOf('The diff of those files'),
    );
  });

  it('keeps them beside a clear verdict too, for the approval of a failing check let through', () => {
    const clear = protectedGate(diff([weakened]), protectedPaths({ add: [], remove: [] }), 'approve');
    expect(clear).toMatchObject({
      verdict: 'clear',
      tests:
        'Tests the branch added, changed or deleted: `test/checkout.test.ts` (modified), 2 assertion lines removed',
    });
    const none = protectedGate(
      diff([file('src/a.ts', 'modified')]),
      protectedPaths({ add: [], remove: [] }),
      'approve',
    );
    expect(none.tests).toBe('');
  });
});
