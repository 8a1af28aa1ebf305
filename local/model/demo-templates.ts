import { ADVISOR_PROMPT_START, WILDCARD } from '../../lambdas/log-analysis/index.ts';

/**
 * The offline demo model's answer to the log template review (lambdas/log-analysis/template-review.ts):
 * no AI, one rule. A word of a template that holds a digit is taken for a variable (`<*>`); a
 * template that this changes is answered with its new text, or, when that text is another
 * template's, as the same event as that one. Enough to exercise the review end to end offline
 * (the calls, the cache, the ledger, the checks against the messages); a real model does better.
 */
export function isTemplateReview(prompt: string): boolean {
  return prompt.startsWith(ADVISOR_PROMPT_START);
}

const QUESTION = /^- id (\S+): (.*)$/;
const DIGIT = /\d/;

/** The review's answers as the JSON text the prompt asks for. */
export function demoTemplateReview(prompt: string): string {
  const lines = prompt.split('\n');
  const others = lines.indexOf('Other templates (for sameAs):');
  const questions: { id: string; template: string }[] = [];
  const known = new Map<string, string>();
  lines.forEach((line, i) => {
    const match = QUESTION.exec(line);
    if (match === null) return;
    const [, id = '', template = ''] = match;
    if (others >= 0 && i > others) known.set(normal(template), id);
    else questions.push({ id, template });
  });
  const answers: ({ id: string; template: string } | { id: string; sameAs: string })[] = [];
  for (const q of questions) {
    const general = q.template
      .split(/(\s+)/)
      .map((word) => (word !== WILDCARD && DIGIT.test(word) ? WILDCARD : word))
      .join('');
    if (general === q.template) continue;
    const same = known.get(normal(general));
    answers.push(same === undefined ? { id: q.id, template: general } : { id: q.id, sameAs: same });
  }
  return JSON.stringify({ answers });
}

const normal = (template: string) => template.trim().replace(/\s+/g, ' ');
