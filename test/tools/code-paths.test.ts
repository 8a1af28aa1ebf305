import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PathRefusedError } from '../../lambdas/tools/code/errors.ts';
import { normalizeRepoPath, resolveLinks } from '../../lambdas/tools/code/paths.ts';

describe('normalizeRepoPath', () => {
  it('drops ./, empty segments and a trailing slash', () => {
    expect(normalizeRepoPath('./src//lib/./index.ts/')).toBe('src/lib/index.ts');
  });

  it('resolves .. that stays inside the repository', () => {
    expect(normalizeRepoPath('src/lib/../index.ts')).toBe('src/index.ts');
  });

  it.each([
    ['../etc/passwd', /outside the repository/],
    ['src/../../secret', /outside the repository/],
    ['/etc/passwd', /absolute paths are not allowed/],
    ['C:/Windows/system.ini', /absolute paths are not allowed/],
    ['~/.ssh/id_rsa', /absolute paths are not allowed/],
    ['src/a\0.ts', /NUL byte/],
    ['src\\a.ts', /forward slashes/],
    ['.git/config', /\.git directory/],
    ['src/.GIT/hooks/pre-commit', /\.git directory/],
    ['', /repository root/],
    ['./', /repository root/],
  ])('refuses %j with a clear reason', (input, reason) => {
    expect(() => normalizeRepoPath(input)).toThrow(PathRefusedError);
    expect(() => normalizeRepoPath(input)).toThrow(reason);
  });

  it('accepts the root where a directory is wanted', () => {
    expect(normalizeRepoPath('.', { allowRoot: true })).toBe('');
  });

  it('refuses a path longer than the cap', () => {
    expect(() => normalizeRepoPath('a/'.repeat(600))).toThrow(/longer than 1024/);
  });

  it('never returns a path that leaves the root, is absolute or has empty, . or .. segments', () => {
    const segment = fc.constantFrom('..', '.', '', 'src', 'a.ts', '.git', 'x', '/');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 12 }), (parts) => {
        const input = parts.join('/');
        let path: string;
        try {
          path = normalizeRepoPath(input, { allowRoot: true });
        } catch (error) {
          expect(error).toBeInstanceOf(PathRefusedError);
          return;
        }
        expect(path.startsWith('/')).toBe(false);
        if (path !== '') {
          for (const s of path.split('/')) {
            expect(['', '.', '..']).not.toContain(s);
            expect(s.toLowerCase()).not.toBe('.git');
          }
        }
      }),
    );
  });

  it('is idempotent: a normalised path normalises to itself', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('..', '.', '', 'src', 'b', 'c.ts'), { maxLength: 10 }),
        (parts) => {
          let once: string;
          try {
            once = normalizeRepoPath(parts.join('/'), { allowRoot: true });
          } catch {
            return;
          }
          expect(normalizeRepoPath(once, { allowRoot: true })).toBe(once);
        },
      ),
    );
  });
});

describe('resolveLinks', () => {
  const links = new Map([
    ['docs/current', 'v2'],
    ['docs/v2/latest.md', '../../README.md'],
    ['escape', '../outside'],
    ['secrets', '/etc'],
    ['loop-a', 'loop-b'],
    ['loop-b', 'loop-a'],
    ['hooks', '.git/hooks'],
  ]);
  const target = (path: string) => links.get(path);

  it('follows a link that stays inside the repository', () => {
    expect(resolveLinks('docs/current/guide.md', target)).toBe('docs/v2/guide.md');
  });

  it('follows a chain of links', () => {
    expect(resolveLinks('docs/current/latest.md', target)).toBe('README.md');
  });

  it('refuses a path through a relative link that leaves the repository', () => {
    expect(() => resolveLinks('escape/file', target)).toThrow(
      /escape is a symbolic link to \.\.\/outside, outside/,
    );
  });

  it('refuses a path through an absolute link', () => {
    expect(() => resolveLinks('secrets/passwd', target)).toThrow(PathRefusedError);
  });

  it('refuses a link loop', () => {
    expect(() => resolveLinks('loop-a', target)).toThrow(/symbolic links \(a loop\?\)/);
  });

  it('refuses a link into .git', () => {
    expect(() => resolveLinks('hooks/pre-commit', target)).toThrow(/into the \.git directory/);
  });
});
