import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUG_CASES, type BugCase } from '../../eval/cases/bugs.ts';
import { gradeFindings } from '../../eval/graders/findings.ts';
import { type FixCheck, gradeFix } from '../../eval/graders/fix.ts';
import { cleanFiles, plantedFiles, REPOS } from '../../eval/repos/repos.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function folderOf(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eval-test-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const BIN = join(process.cwd(), 'node_modules', '.bin');
const fixOf = (c: BugCase, headDir: string, baseDir: string, checks?: readonly FixCheck[]) =>
  gradeFix({
    headDir,
    baseDir,
    hiddenTests: c.truth.hiddenTests,
    hiddenCommand: REPOS[c.repo].hidden,
    fullCommand: REPOS[c.repo].full,
    testDirs: REPOS[c.repo].testDirs,
    binDir: BIN,
    ...(checks ? { checks } : {}),
  });

describe('the findings grader', () => {
  const truth = { file: 'src/checkout.ts', line: 44 };
  const passes = (location: string | null, rootCause: string | null = 'VAT on the subtotal') =>
    gradeFindings(truth, {
      ...(location !== null ? { location } : {}),
      ...(rootCause !== null ? { rootCause } : {}),
    }).every((c) => c.pass);

  it('passes the planted line, a line near it, and a short range holding it (paths match on their end)', () => {
    expect(passes('src/checkout.ts:44')).toBe(true);
    expect(passes('src/checkout.ts:46')).toBe(true);
    expect(passes('webshop/src/checkout.ts:40-46')).toBe(true);
  });

  it('fails a whole-file range, a range beside the line, another file, a far line, and no cause', () => {
    expect(passes('src/checkout.ts:1-80')).toBe(false);
    expect(passes('src/checkout.ts:30-43')).toBe(false);
    expect(passes('src/tax.ts:44')).toBe(false);
    expect(passes('src/checkout.ts:12')).toBe(false);
    expect(passes('src/checkout.ts:44', null)).toBe(false);
  });

  it('reads the submitted location only, never file:line in the prose', () => {
    expect(passes(null, 'The VAT is computed at src/checkout.ts:44 on the subtotal')).toBe(false);
    expect(passes('line 44 of src/checkout.ts')).toBe(false);
    expect(gradeFindings(truth, undefined)[0]?.detail).toContain('no findings');
  });
});

describe('the fix grader', () => {
  const c = BUG_CASES.find((b) => b.id === 'bug/invoicing-reverse-charge') as BugCase;

  it('fails a branch that cheats by editing the tests and breaks another function', async () => {
    const { files } = await plantedFiles(c);
    const base = await folderOf(files);
    const cheat = await folderOf({
      ...(await cleanFiles('invoicing')),
      'invoicing/money.py':
        'def percent_of(a, p):\n    return 0\n\ndef format_cents(a, c="EUR"):\n    return ""\n',
      'tests/test_lines.py': 'import unittest\n',
    });
    const checks = await fixOf(c, cheat, base);
    expect(checks.map((x) => [x.name, x.pass])).toEqual([
      ['fail-to-pass', true],
      ['pass-to-pass', false],
    ]);
  });
});

// Each TypeScript case costs three tsx starts (~10 s on a busy machine): by default two of them and
// every Python case are checked; EVAL_CHECK_ALL_CASES=1 checks all. The cases are independent (each
// grades in folders of its own) and wait mostly on their test processes: they run side by side.
const CHECKED = process.env.EVAL_CHECK_ALL_CASES
  ? BUG_CASES
  : [
      ...BUG_CASES.filter((c) => c.repo === 'webshop').slice(0, 2),
      ...BUG_CASES.filter((c) => c.repo === 'invoicing'),
    ];

describe('the bug cases', () => {
  it('are at least twelve across two repositories in two languages', () => {
    expect(BUG_CASES.length).toBeGreaterThanOrEqual(12);
    expect(new Set(BUG_CASES.map((c) => c.repo))).toEqual(new Set(['webshop', 'invoicing']));
  });
});

describe.concurrent('each checked bug case', () => {
  describe.each(CHECKED.map((c) => [c.id, c] as const))('bug case %s', (_, c) => {
    it('fails its hidden tests with the bug planted, and passes them and the base tests once fixed', async () => {
      const { files } = await plantedFiles(c);
      const base = await folderOf(files);
      const fixed = await folderOf(await cleanFiles(c.repo));
      // With the bug planted only the hidden tests are asked about; the fix is graded meanwhile.
      const [unfixed, right] = await Promise.all([
        fixOf(c, base, base, ['fail-to-pass']),
        fixOf(c, fixed, base),
      ]);
      expect(unfixed.find((x) => x.name === 'fail-to-pass')?.pass).toBe(false);
      expect(right.map((x) => [x.name, x.pass, x.detail])).toEqual([
        ['fail-to-pass', true, expect.any(String)],
        ['pass-to-pass', true, expect.any(String)],
      ]);
    });
  });
});
