import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidGlobError } from '../../lambdas/tools/code/errors.ts';
import { compileGlob } from '../../lambdas/tools/code/glob.ts';

const matches = (glob: string, path: string) => compileGlob(glob).matches(path);

describe('compileGlob', () => {
  it.each([
    ['*.ts', 'index.ts', true],
    ['*.ts', 'src/lib/index.ts', true],
    ['*.ts', 'src/index.tsx', false],
    ['src/*.ts', 'src/index.ts', true],
    ['src/*.ts', 'src/lib/index.ts', false],
    ['src/**/*.ts', 'src/index.ts', true],
    ['src/**/*.ts', 'src/a/b/c/index.ts', true],
    ['src/**/*.ts', 'test/index.ts', false],
    ['src/**', 'src/a/b.md', true],
    ['**/test/*.test.ts', 'packages/x/test/a.test.ts', true],
    ['?.md', 'a.md', true],
    ['?.md', 'ab.md', false],
    ['[abc].js', 'b.js', true],
    ['[abc].js', 'd.js', false],
    ['[!abc].js', 'd.js', true],
    ['[a-c]x', 'bx', true],
    ['*.{ts,tsx}', 'app/view.tsx', true],
    ['*.{ts,tsx}', 'app/view.js', false],
    ['src/{lib,bin}/*.ts', 'src/bin/cli.ts', true],
    ['\\*.md', '*.md', true],
    ['\\*.md', 'a.md', false],
    ['./src/*.ts', 'src/a.ts', true],
  ])('%j against %j is %s', (glob, path, expected) => {
    expect(matches(glob, path)).toBe(expected);
  });

  it.each([
    ['{a,b', /no matching \}/],
    ['[abc', /no matching \]/],
    ['[z-a]', /reversed/],
    ['', /empty/],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}', /more than 64 patterns/],
  ])('refuses %j', (glob, reason) => {
    expect(() => compileGlob(glob)).toThrow(InvalidGlobError);
    expect(() => compileGlob(glob)).toThrow(reason);
  });

  it('matches a pattern with many stars against a long name quickly (no backtracking blow-up)', () => {
    const glob = compileGlob(`${'*a'.repeat(30)}*b`);
    expect(glob.matches('a'.repeat(5_000))).toBe(false);
  });

  it('matches every path with ** and a path exactly by itself', () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/).filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (parts) => {
        const path = parts.join('/');
        expect(matches('**', path)).toBe(true);
        // Inside a segment of this alphabet no character is special.
        expect(matches(path, path)).toBe(true);
      }),
    );
  });

  it('agrees with * as "any characters but /" on single segments', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ab]{0,6}$/), fc.stringMatching(/^[ab]{0,10}$/), (prefix, name) => {
        expect(matches(`${prefix}*`, name)).toBe(name.startsWith(prefix));
        expect(matches(`*${prefix}`, name)).toBe(name.endsWith(prefix));
      }),
    );
  });

  it('agrees with a regular expression reference on random patterns and paths', () => {
    // The reference: the documented rules written as a regular expression (fine on these tiny inputs).
    const reference = (glob: string, path: string): boolean => {
      const pattern = glob.includes('/') ? glob : `**/${glob}`;
      // Consecutive `**` segments mean what one does.
      const segments = pattern
        .split('/')
        .filter((x) => x !== '')
        .filter((x, k, all) => !(x === '**' && all[k - 1] === '**'));
      let source = '';
      segments.forEach((segment, index) => {
        const last = index === segments.length - 1;
        if (segment === '**') {
          source += last ? (index === 0 ? '.*' : '(?:/.*)?') : index === 0 ? '(?:.*/)?' : '/(?:.*/)?';
          return;
        }
        const body = segment.replace(/\*+/g, '*').replace(/[*?]/g, (c) => (c === '*' ? '[^/]*' : '[^/]'));
        const previous = segments[index - 1];
        source += index === 0 || previous === '**' ? body : `/${body}`;
      });
      return new RegExp(`^${source}$`).test(path);
    };
    const patternPart = fc.constantFrom('a', 'b', '*', '?', '**', '/', 'ab');
    const segment = fc.stringMatching(/^[ab]{1,3}$/);
    fc.assert(
      fc.property(
        fc.array(patternPart, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
        fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
        (glob, path) => {
          // Segments like `a**b` are `a*b` for both; a pattern that is only slashes is not a pattern.
          if (glob.replaceAll('/', '') === '') return;
          expect(compileGlob(glob).matches(path)).toBe(reference(glob, path));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
