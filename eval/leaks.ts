import type { EvalCase } from './cases/index.ts';

/**
 * What no prompt may hold, or an agent could tell it is being evaluated, and on which case: the
 * case's id and title, the word "eval", and the truth fields a production conversation never
 * shows (hidden tests, rubrics). Telemetry, code and messages the truth is about are not among
 * them: an agent is meant to find those.
 */

export function secretsOf(c: EvalCase): string[] {
  const common = [c.id, c.id.split('/').at(-1) ?? c.id];
  switch (c.workflow) {
    case 'incident_investigation':
      return [...common, c.title];
    case 'bug_investigation':
      return [...common, c.title, ...Object.entries(c.truth.hiddenTests).flat()];
    case 'issue_pipeline':
      // The title is the pipeline case's title: production shows it too.
      return [...common, ...c.truth.reviewRubric, ...Object.entries(c.bug.truth.hiddenTests).flat()];
    case 'requirements_interview':
      return [...common, c.title, ...c.truth.prdMustHave, ...c.truth.risks];
    case 'channel_conversations':
      return [...common, c.title, ...c.steps.flatMap((s) => (s.rubric ? [s.rubric] : []))];
  }
}

/** The secrets of `c` that `text` holds, and the word "eval" when it does. */
export function leaksIn(c: EvalCase, text: string): string[] {
  const lower = text.toLowerCase();
  const found = secretsOf(c).filter((s) => s.length > 3 && lower.includes(s.toLowerCase()));
  const word = /\beval\b/i.exec(text);
  return word ? [...found, `"${text.slice(Math.max(0, word.index - 40), word.index + 40)}"`] : found;
}
