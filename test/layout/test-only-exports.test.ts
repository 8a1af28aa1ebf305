import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scan, testOnlyExports } from './export-uses.ts';

/**
 * Production code exports what production code uses. An export that only tests import widens
 * the production surface for the tests' sake: test through the public seam instead, or keep
 * the helper beside its tests under test/. `test-only-exports.json` lists the ones that stay,
 * each with why; the list may only shrink: a new one fails the first test below, and an entry
 * that production code now uses, or that is gone, fails the second (delete it).
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The known ones, each with why it stays. */
const KNOWN: readonly string[] = Object.keys(
  JSON.parse(readFileSync(new URL('./test-only-exports.json', import.meta.url), 'utf8')) as Record<
    string,
    string
  >,
);

describe('production exports used only by tests', () => {
  const found = testOnlyExports(REPO);

  it('are none but the known ones (test through the public seam, or move the helper under test/)', () => {
    expect(found.filter((key) => !KNOWN.includes(key))).toEqual([]);
  });

  it('list no known one that is no longer exported for tests alone (remove it from the list)', () => {
    expect(KNOWN.filter((key) => !found.includes(key))).toEqual([]);
  });
});

describe('reading who uses an export', () => {
  const uses = (path: string, source: string) =>
    scan(path, source).uses.map(({ module, names }) => [module, names]);

  it('reads named, type, default and namespace imports, resolved from the importing file', () => {
    const source = [
      "import { a, type B, c as d } from '../lambdas/x.ts';",
      "import type { E } from './y.ts';",
      "import f, { g } from '../local/z.ts';",
      "import * as all from '../infra/w.ts';",
      "import 'node:fs';",
    ].join('\n');
    expect(uses('test/t.test.ts', source)).toEqual([
      ['lambdas/x.ts', ['a', 'B', 'c']],
      ['test/y.ts', ['E']],
      ['local/z.ts', ['g', 'default']],
      ['infra/w.ts', 'all'],
    ]);
  });

  it('reads re-exports, destructured and typed import() calls, and skips what comments say', () => {
    const source = [
      "export { h, i as j } from './v.ts';",
      "const { k, l: m } = await import('./u.ts');",
      "type N = import('./s.ts').Shape;",
      "const whole = await import('./r.ts');",
      "// import { o } from './q.ts';",
    ].join('\n');
    expect(uses('local/a.ts', source)).toEqual([
      ['local/v.ts', ['h', 'i']],
      ['local/u.ts', ['k', 'l']],
      ['local/s.ts', ['Shape']],
      ['local/r.ts', 'all'],
    ]);
  });

  it('reads what a file exports, its own declarations and lists', () => {
    const source = [
      'export const A = 1;',
      'export async function b() {}',
      'export interface C {}',
      'export type D = string;',
      'export abstract class E {}',
      'const f = 2;',
      'export { f as F };',
      'export default f;',
    ].join('\n');
    expect([...scan('lambdas/a.ts', source).exports.names].sort()).toEqual(
      ['A', 'C', 'D', 'E', 'F', 'b', 'default'].sort(),
    );
  });
});
