import type { RedactionSettings } from './config.ts';
import type { Finding } from './findings.ts';
import { redactionSettings } from './from-env.ts';

/** Which side of a cut is kept: the text before it (`head`, an end cut) or after it (`tail`, a start cut). */
export type KeptSide = 'head' | 'tail';

/**
 * Where to cut `text` near `at` so that no secret or personal value the layer finds in the
 * whole text is split: a cut that falls inside one moves back to its start (keeping the head)
 * or forward to its end (keeping the tail), so the value is left out whole. A tool that cuts
 * its output before the layer redacts it would otherwise leave part of a value no rule matches
 * any more (a GitHub token cut after 28 of its 36 characters), and that part reaches the model.
 * A value kept whole must still be found in what is kept: a rule that needs what surrounds the
 * value (the key before an AWS secret key) finds nothing once the cut drops it, so the cut moves
 * past such a value too. The finders are the layer's own with the installation's settings; only
 * a text longer than its limit is cut, so only such a text pays for them.
 */
export async function safeCut(
  text: string,
  at: number,
  keep: KeptSide,
  settings: RedactionSettings = redactionSettings(),
): Promise<number> {
  if (at <= 0 || at >= text.length) return Math.min(Math.max(at, 0), text.length);
  const { findAll } = await import('./finders.ts');
  const whole = await findAll(text, settings.pii);
  let cut = outside(whole, at, keep);
  for (;;) {
    const lost = await lostBy(text, cut, keep, whole, (part) => findAll(part, settings.pii));
    if (lost.length === 0) return cut;
    const past =
      keep === 'head' ? Math.min(...lost.map((f) => f.start)) : Math.max(...lost.map((f) => f.end));
    cut = outside(whole, past, keep);
  }
}

/** `at`, moved out of every finding it falls strictly inside, toward the side left out. */
function outside(findings: readonly Finding[], at: number, keep: KeptSide): number {
  let cut = at;
  for (let moved = true; moved; ) {
    moved = false;
    for (const finding of findings) {
      if (finding.start < cut && cut < finding.end) {
        cut = keep === 'head' ? finding.start : finding.end;
        moved = true;
      }
    }
  }
  return cut;
}

/** The findings of the whole text kept whole by the cut that the finders no longer find in what is kept. */
async function lostBy(
  text: string,
  cut: number,
  keep: KeptSide,
  whole: readonly Finding[],
  find: (part: string) => Promise<Finding[]>,
): Promise<Finding[]> {
  const kept = whole.filter((f) => (keep === 'head' ? f.end <= cut : f.start >= cut));
  if (kept.length === 0) return [];
  const offset = keep === 'head' ? 0 : cut;
  const seen = await find(keep === 'head' ? text.slice(0, cut) : text.slice(cut));
  return kept.filter((f) => !seen.some((g) => g.start + offset <= f.start && f.end <= g.end + offset));
}
