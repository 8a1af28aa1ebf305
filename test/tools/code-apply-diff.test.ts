import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { applyUnifiedDiff, parseUnifiedDiff } from '../../lambdas/tools/code/apply-diff.ts';
import { DiffDoesNotApplyError, MalformedDiffError } from '../../lambdas/tools/code/errors.ts';

const apply = (original: string | undefined, diff: string) =>
  applyUnifiedDiff('src/a.ts', original, parseUnifiedDiff(diff));

const work = mkdtempSync(join(tmpdir(), 'apply-diff-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The diff git itself makes from `a` to `b` (an independent implementation to check against). */
function gitDiff(a: string, b: string, context: number): string {
  writeFileSync(join(work, 'a'), a);
  writeFileSync(join(work, 'b'), b);
  try {
    return execFileSync('git', ['diff', '--no-index', `-U${context}`, 'a', 'b'], {
      cwd: work,
      encoding: 'utf8',
    });
  } catch (error) {
    // `git diff` exits 1 when the files differ; its output is the diff.
    return (error as { stdout: string }).stdout;
  }
}

describe('applyUnifiedDiff', () => {
  const original = 'one\ntwo\nthree\nfour\nfive\n';

  it('replaces a line', () => {
    expect(
      apply(original, '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n'),
    ).toBe('one\ntwo\nTHREE\nfour\nfive\n');
  });

  it('finds a hunk whose header line number is off', () => {
    expect(apply(original, '@@ -1,2 +1,2 @@\n four\n-five\n+5\n')).toBe('one\ntwo\nthree\nfour\n5\n');
  });

  it('ignores wrong line counts in the hunk header', () => {
    expect(apply(original, '@@ -1,9 +1,1 @@\n one\n-two\n')).toBe('one\nthree\nfour\nfive\n');
  });

  it('creates a file from a diff against /dev/null', () => {
    expect(apply(undefined, '--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1,2 @@\n+hello\n+world\n')).toBe(
      'hello\nworld\n',
    );
  });

  it('keeps a missing final newline, and removes it when the diff says so', () => {
    expect(apply('a\nb', '@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n')).toBe('A\nb');
    expect(apply('a\nb\n', '@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n')).toBe('a\nb');
  });

  it('refuses a hunk whose context is not in the file, naming the line it expected', () => {
    const attempt = () => apply(original, '@@ -2,2 +2,2 @@\n two\n-tree\n+THREE\n');
    expect(attempt).toThrow(DiffDoesNotApplyError);
    expect(attempt).toThrow(/hunk 1 \(@@ -2\).*at line 3 it expects "tree" but the file has "three"/);
  });

  it('fails the whole diff when its second hunk does not apply', () => {
    expect(() => apply(original, '@@ -1 +1 @@\n-one\n+1\n@@ -5 +5 @@\n-six\n+6\n')).toThrow(/hunk 2/);
  });

  it.each([
    ['no hunk', 'just some text\n', /no @@ hunk/],
    [
      'two files',
      '@@ -1 +1 @@\n-one\n+1\n--- a/b.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-x\n+y\n',
      /more than one file/,
    ],
    ['a stray line', '@@ -1 +1 @@\n-one\n*1\n', /starts with "\*"/],
    ['a hunk with only context', '@@ -1 +1 @@\n one\n', /changes nothing/],
  ])('refuses a malformed diff: %s', (_name, diff, reason) => {
    expect(() => apply(original, diff)).toThrow(MalformedDiffError);
    expect(() => apply(original, diff)).toThrow(reason);
  });

  it('reads the paths of the --- and +++ headers', () => {
    const parsed = parseUnifiedDiff(
      'diff --git a/x.ts b/x.ts\n--- a/x.ts\t2015-01-01\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n',
    );
    expect(parsed).toMatchObject({ oldPath: 'x.ts', newPath: 'x.ts' });
  });

  it('turns A into B with the diff git makes from A to B, whatever A, B and the context', () => {
    const line = fc.constantFrom('a', 'b', 'c', '', '  x', '}');
    const file = fc
      .tuple(fc.array(line, { maxLength: 14 }), fc.boolean())
      .map(([lines, newline]) => (lines.length === 0 ? '' : `${lines.join('\n')}${newline ? '\n' : ''}`));
    fc.assert(
      fc.property(file, file, fc.integer({ min: 0, max: 3 }), (a, b, context) => {
        const diff = gitDiff(a, b, context);
        if (diff === '') return; // identical files
        expect(apply(a, diff)).toBe(b);
      }),
      { numRuns: 150 },
    );
  });
});
