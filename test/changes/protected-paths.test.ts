import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import type { BranchDiff, ChangedFile } from '../../lambdas/changes/changed-files.ts';
import { changedFilesSection } from '../../lambdas/changes/changed-files.ts';
import { protectedGate } from '../../lambdas/changes/gate.ts';
import { compilePattern, normaliseGuardPath, prefixPatterns } from '../../lambdas/changes/paths.ts';
import {
  findProtectedChanges,
  ProtectedPathsSettings,
  protectedDiffExcerpt,
  protectedPaths,
} from '../../lambdas/changes/protected-paths.ts';

/** The characters of patch excerpts one approval request shows in all (stated here, not imported: the value is what this test checks). */
const PATCH_CHARS_TOTAL = 2_400;

const file = (path: string, more: Partial<ChangedFile> = {}): ChangedFile => ({
  path,
  status: 'modified',
  additions: 1,
  deletions: 1,
  ...more,
});
const defaults = protectedPaths(ProtectedPathsSettings.parse({}));
const protectedOf = (...files: ChangedFile[]) =>
  findProtectedChanges(files, defaults).map((c) => c.file.path);

describe('normalising a path before it is matched', () => {
  it('drops ./ and duplicate slashes, and reads backslashes as slashes', () => {
    expect(normaliseGuardPath('./.github//workflows/./evil.yml')).toEqual({
      ok: true,
      path: '.github/workflows/evil.yml',
    });
    expect(normaliseGuardPath('.github\\workflows\\evil.yml')).toMatchObject({
      path: '.github/workflows/evil.yml',
    });
  });

  it('composes Unicode (NFC), so a decomposed accent names the same file', () => {
    const decomposed = 'docs/re\u0301sume\u0301.md';
    expect(normaliseGuardPath(decomposed)).toEqual({ ok: true, path: 'docs/r\u00e9sum\u00e9.md' });
  });

  it('refuses a ".." segment, an absolute path and control characters', () => {
    expect(normaliseGuardPath('src/../.github/x.yml')).toMatchObject({ ok: false });
    expect(normaliseGuardPath('/etc/passwd')).toMatchObject({ ok: false });
    expect(normaliseGuardPath('src/a\u0000.ts')).toMatchObject({ ok: false });
    expect(normaliseGuardPath('./')).toMatchObject({ ok: false });
  });
});

describe('matching protected patterns', () => {
  it('matches .github in any case', () => {
    expect(compilePattern('/.github/**').matches('.GitHub/workflows/evil.yml')).toBe(true);
    expect(compilePattern('/.github/**').matches('src/.github.ts')).toBe(false);
  });

  it('matches a file-name pattern at any depth, and an anchored one only at the root', () => {
    expect(compilePattern('package.json').matches('packages/api/package.json')).toBe(true);
    expect(compilePattern('/.circleci/**').matches('nested/.circleci/config.yml')).toBe(false);
  });

  it('reads a former sensitive-path prefix as everything starting with it', () => {
    const patterns = prefixPatterns('src/payments').map(compilePattern);
    const any = (path: string) => patterns.some((p) => p.matches(path));
    expect(any('src/payments/stripe.ts')).toBe(true);
    expect(any('src/payments.ts')).toBe(true);
    expect(any('SRC/Payments/x.ts')).toBe(true);
    expect(any('src/pay.ts')).toBe(false);
  });
});

describe('the protected changes of a diff, by default', () => {
  it('finds CI definitions however they are spelt', () => {
    expect(protectedOf(file('.github/workflows/evil.yml', { status: 'added' }))).toHaveLength(1);
    expect(protectedOf(file('.GitHub/workflows/evil.yml', { status: 'added' }))).toHaveLength(1);
    expect(protectedOf(file('.gitlab-ci.yml'), file('Jenkinsfile'), file('buildspec.yml'))).toHaveLength(3);
  });

  it('finds manifests, build scripts, CODEOWNERS and the agents configuration', () => {
    const paths = [
      'package.json',
      'requirements-dev.txt',
      'go.mod',
      'Cargo.toml',
      'Makefile',
      'Dockerfile',
      'docs/CODEOWNERS',
      'AGENTS.md',
    ];
    expect(protectedOf(...paths.map((p) => file(p)))).toEqual(paths);
  });

  it('counts a deletion, and a rename into or out of a protected path', () => {
    expect(protectedOf(file('package.json', { status: 'removed' }))).toEqual(['package.json']);
    expect(
      protectedOf(file('.github/workflows/x.yml', { status: 'renamed', previousPath: 'src/x.yml' })),
    ).toEqual(['.github/workflows/x.yml']);
    expect(
      protectedOf(file('src/ci.yml', { status: 'renamed', previousPath: '.github/workflows/ci.yml' })),
    ).toEqual(['src/ci.yml']);
  });

  it('protects a symbolic link wherever it is, and a change that was a link before', () => {
    expect(protectedOf(file('src/link.ts', { status: 'added', mode: '120000' }))).toEqual(['src/link.ts']);
    expect(
      protectedOf(file('src/was-link.ts', { status: 'changed', mode: '100644', previousMode: '120000' })),
    ).toEqual(['src/was-link.ts']);
  });

  it('protects a lockfile-only change even when lockfiles were unprotected', () => {
    const rules = protectedPaths(ProtectedPathsSettings.parse({ remove: ['package-lock.json'] }));
    expect(findProtectedChanges([file('package-lock.json')], rules).map((c) => c.why)).toEqual([
      'a lockfile-only change',
    ]);
    expect(findProtectedChanges([file('package-lock.json'), file('src/a.ts')], rules)).toEqual([]);
  });

  it('protects a file whose path cannot be checked', () => {
    expect(protectedOf(file('src/x', { unreadable: 'the path has a ".." segment' }))).toEqual(['src/x']);
  });

  it('leaves ordinary source files alone', () => {
    expect(protectedOf(file('src/checkout.ts'), file('test/checkout.test.ts', { status: 'added' }))).toEqual(
      [],
    );
  });
});

describe('the protected-paths setting', () => {
  it('adds patterns and removes defaults', () => {
    const rules = protectedPaths(
      ProtectedPathsSettings.parse({ add: ['src/payments/**'], remove: ['Makefile'] }),
    );
    expect(findProtectedChanges([file('src/payments/a.ts')], rules)).toHaveLength(1);
    expect(findProtectedChanges([file('Makefile'), file('src/a.ts')], rules)).toEqual([]);
  });

  it('refuses to remove a pattern that is not a default, naming it', () => {
    const parsed = ProtectedPathsSettings.safeParse({ remove: ['.github/*'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message).join('\n')).toContain(
      '".github/*" is not one of the default protected paths',
    );
  });

  it('refuses a pattern with a ".." segment', () => {
    expect(ProtectedPathsSettings.safeParse({ add: ['../x/**'] }).success).toBe(false);
  });
});

describe('the gate before a pull request', () => {
  const diff = (files: ChangedFile[], incomplete = false): BranchDiff => ({
    baseSha: 'b'.repeat(40),
    headSha: 'abcdef0123456789abcdef0123456789abcdef01',
    files,
    incomplete,
  });

  it('is clear when nothing protected changed', () => {
    expect(protectedGate(diff([file('src/a.ts')]), defaults, 'approve').verdict).toBe('clear');
  });

  it('asks an approver with the real diff of the protected files, cut to size', () => {
    const patch = `@@ -0,0 +1,2 @@\n+on: push\n+${'x'.repeat(5_000)}`;
    const verdict = protectedGate(
      diff([file('.github/workflows/evil.yml', { status: 'added', patch }), file('src/a.ts')]),
      defaults,
      'approve',
    );
    expect(verdict.verdict).toBe('approval');
    expect(verdict.files).toEqual(['.github/workflows/evil.yml']);
    expect(verdict.approvalText).toContain('+on: push');
    expect(verdict.approvalText).toContain('cut:');
    expect(verdict.approvalText.length).toBeLessThanOrEqual(2_900);
  });

  it('refuses with the reason when the workflow refuses protected changes', () => {
    const verdict = protectedGate(diff([file('package.json', { status: 'removed' })]), defaults, 'refuse');
    expect(verdict.verdict).toBe('refused');
    expect(verdict.reason).toContain('`package.json` (deleted): matches `package.json`');
  });

  it('does not pass a diff GitHub listed only in part', () => {
    expect(protectedGate(diff([file('src/a.ts')], true), defaults, 'approve').verdict).toBe('approval');
  });

  it('keeps every excerpt within the total', () => {
    const many = Array.from({ length: 10 }, (_, i) =>
      file(`.github/w${i}.yml`, { status: 'added', patch: 'y'.repeat(2_000) }),
    );
    const excerpt = protectedDiffExcerpt(findProtectedChanges(many, defaults));
    expect(excerpt.length).toBeLessThan(PATCH_CHARS_TOTAL + 400);
    expect(excerpt).toContain('more files');
  });
});

describe("a pull request's file list", () => {
  it('lists renames with both paths, deletions and links, from the diff', () => {
    const text = changedFilesSection({
      baseSha: 'b',
      headSha: 'h',
      incomplete: false,
      files: [
        file('.github/x.yml', { status: 'renamed', previousPath: 'src/x.yml' }),
        file('package.json', { status: 'removed' }),
        file('src/l', { status: 'added', mode: '120000' }),
      ],
    });
    expect(text).toBe(
      '- `src/x.yml` → `.github/x.yml` (renamed)\n- `package.json` (deleted)\n- `src/l` (added, a symbolic link)',
    );
  });
});

describe('the protected-paths setting in the stack configuration', () => {
  it('names a removed pattern that is not a default by its field, failing the synth', () => {
    expect(() => parseConfig({ protectedPaths: { remove: ['.github/'] } })).toThrow(
      /slackAgents\.protectedPaths\.remove: .*"\.github\/" is not one of the default protected paths/,
    );
  });

  it('takes added patterns and each workflow its own handling', () => {
    const config = parseConfig({
      sandbox: true,
      protectedPaths: { add: ['src/payments/**'] },
      bugInvestigation: { protectedChanges: 'refuse' },
    }) as unknown as { protectedPaths: unknown; bugInvestigation: { protectedChanges: string } };
    expect(config.protectedPaths).toEqual({ add: ['src/payments/**'], remove: [] });
    expect(config.bugInvestigation.protectedChanges).toBe('refuse');
    expect(() => parseConfig({ sandbox: true, issuePipeline: { protectedChanges: 'ignore' } })).toThrow(
      /protectedChanges/,
    );
  });
});
