import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Dates written into tests. A date near the present as a literal works on the day it was
 * written and expires as soon as the code under test compares it with its own clock, so tests
 * write times relative to the clock (test/support/clock.ts), or far from the present. A file
 * that fixes the process's clock itself (`vi.setSystemTime`) may use any date.
 */

/** How far from the reference day a literal counts as near the present. */
export const NEAR_DAYS = 366;

const ISO_DATE = /(?<![\d.])(\d{4})-(\d{2})-(\d{2})(?![\d])/g;
const PINS_THE_CLOCK = /vi\.setSystemTime\(/;
const DAY_MS = 86_400_000;

export interface NearDate {
  file: string;
  line: number;
  date: string;
}

/** The ISO dates (`YYYY-MM-DD`, alone or starting a timestamp) in `source` within `NEAR_DAYS` of `reference`. */
export function nearDates(source: string, reference: Date): Array<{ line: number; date: string }> {
  if (PINS_THE_CLOCK.test(source)) return [];
  const found: Array<{ line: number; date: string }> = [];
  for (const [index, text] of source.split('\n').entries()) {
    for (const match of text.matchAll(ISO_DATE)) {
      const [date, year, month, day] = match as unknown as [string, string, string, string];
      const at = Date.UTC(Number(year), Number(month) - 1, Number(day));
      const real = new Date(at).getUTCDate() === Number(day) && Number(month) >= 1 && Number(month) <= 12;
      if (real && Math.abs(at - reference.getTime()) <= NEAR_DAYS * DAY_MS)
        found.push({ line: index + 1, date });
    }
  }
  return found;
}

/** The day the tree was committed (HEAD's committer date); the real clock's when there is no git. */
export function commitDate(repo: string): Date {
  try {
    const iso = execFileSync('git', ['log', '-1', '--format=%cI'], { cwd: repo, encoding: 'utf8' }).trim();
    if (iso !== '') return new Date(iso);
  } catch {
    // Not a git checkout (an unpacked archive): the clock is the only reference left.
  }
  return new Date();
}

/** Every text file under `root` (test sources, helpers and fixture data). */
export function textFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|tsx|js|mjs|json|ya?ml|txt|log|md|csv)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

export function nearDatesIn(repo: string, reference: Date): NearDate[] {
  return textFiles(join(repo, 'test')).flatMap((path) =>
    nearDates(readFileSync(path, 'utf8'), reference).map((hit) => ({ file: relative(repo, path), ...hit })),
  );
}
