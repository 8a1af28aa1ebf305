import { describe, it } from 'vitest';
import { loghubDir, loghubPresent } from '../log-analysis/loghub.ts';

/**
 * Tests that read the Loghub 2k samples, which live outside the repository (`../shared/data/loghub`
 * beside the clone, or `$LOGHUB_DIR`). Where the data is absent they do not vanish: each one is
 * reported as skipped with a note naming the directory it looked in, and the file prints that
 * note once, so a clone without the data still passes and says what it did not run.
 */

/** Why Loghub-based tests are skipped here, or undefined when the data is present. */
export function loghubAbsentNote(): string | undefined {
  if (loghubPresent()) return undefined;
  return `needs the Loghub 2k data in ${loghubDir()} (set LOGHUB_DIR to where it is); absent here, skipped`;
}

let warned = false;
function warnOnce(note: string) {
  if (warned) return;
  warned = true;
  console.warn(`[shared data] ${note}`);
}

/** `it`, or where the data is absent, a test that skips itself with the note. */
export function itWithLoghub(name: string, body: () => unknown | Promise<unknown>, timeout?: number): void {
  const note = loghubAbsentNote();
  if (note === undefined) {
    it(name, body, timeout);
    return;
  }
  warnOnce(note);
  it(`${name} [${note}]`, (context) => context.skip(note));
}

/**
 * `describe`, or where the data is absent, the same suite skipped, its name carrying the note:
 * every test in it is listed as skipped (keep data reads in hooks, which a skipped suite never runs).
 */
export function describeWithLoghub(name: string, body: () => void): void {
  const note = loghubAbsentNote();
  if (note === undefined) {
    describe(name, body);
    return;
  }
  warnOnce(note);
  describe.skip(`${name} [${note}]`, body);
}
