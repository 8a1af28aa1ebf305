import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository speaks of itself alone: a comment or a page states its rule, or links the page
 * in docs/ that does, and never cites a design document by its section or a planning document
 * kept outside the repository. Only tests and benchmarks may read the data kept beside it.
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Text files in git, with what they say. */
function trackedTexts(): [string, string][] {
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--', '*.ts', '*.tsx', '*.md', '*.mjs', '*.json', '*.yml'],
    {
      cwd: REPO,
      encoding: 'utf8',
    },
  )
    .split('\0')
    .filter((file) => file !== '' && !file.endsWith('package-lock.json'));
  return files.map((file) => [file, readFileSync(join(REPO, file), 'utf8')]);
}

const CITATIONS: readonly [string, RegExp][] = [
  ['a section of a design document', /\((?:see )?(?:section|§) ?\d+(?:\.\d+)*\)/i],
  ['the design document', /\bDESIGN(?:\.md)?\s+(?:section\s+)?\d/],
  ['the style guide kept outside the repository', /\bSTYLE\.md\b/],
  ['the seed documents', /\bseeds?\/(?:\d|index)|\bseed 0\d\d\b/i],
];

/**
 * Where what lies beside the repository may be named: the tests and benchmarks that read its
 * data, and the page that says where they find it. (`lambdas/shared/` is the repository's own.)
 */
const MAY_READ_SHARED = /^(?:test\/|bench\/|docs\/testing\.md$)/;
const BESIDE = /(?<![./'"])\.\.\/shared\b/;

function findings(texts: [string, string][]): string[] {
  const found: string[] = [];
  for (const [file, text] of texts) {
    if (file === 'test/layout/citations.test.ts') continue;
    text.split('\n').forEach((line, index) => {
      for (const [what, pattern] of CITATIONS)
        if (pattern.test(line)) found.push(`${file}:${index + 1} cites ${what}: ${line.trim()}`);
      if (BESIDE.test(line) && !MAY_READ_SHARED.test(file))
        found.push(`${file}:${index + 1} points outside the repository: ${line.trim()}`);
    });
  }
  return found;
}

describe('citations', () => {
  it('no tracked file cites a design section, the seed documents or what lies beside the repository', () => {
    expect(findings(trackedTexts())).toEqual([]);
  });

  it('finds each kind of citation, and leaves a random seed or a test reading its data alone', () => {
    const texts: [string, string][] = [
      ['lambdas/a.ts', ' * The history tool (section 9): reads it all.'],
      ['docs/b.md', 'As DESIGN 3.4 says.'],
      ['lambdas/c.ts', '// per ../shared/seeds/index.md'],
      ['local/d.ts', '/** The demo incident, seed 3. */'],
      ['test/e.test.ts', "const LOGHUB = join(ROOT, '../shared/data/loghub');"],
      ['lambdas/f.ts', "import { ENV } from '../shared/env.ts';"],
    ];
    expect(findings(texts)).toEqual([
      'lambdas/a.ts:1 cites a section of a design document: * The history tool (section 9): reads it all.',
      'docs/b.md:1 cites the design document: As DESIGN 3.4 says.',
      'lambdas/c.ts:1 cites the seed documents: // per ../shared/seeds/index.md',
      'lambdas/c.ts:1 points outside the repository: // per ../shared/seeds/index.md',
    ]);
  });
});
