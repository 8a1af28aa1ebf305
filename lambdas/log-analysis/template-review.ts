/**
 * Optional model help for templates, off unless a caller passes an advisor: the templates the
 * miner has the least evidence for (the fewest messages: it cannot tell a constant from a value
 * it saw once) are sent in one batch, with a few of their messages, to a model that may name a
 * better template or say that two templates are one event. As in LILAC (Jiang et al., FSE 2024:
 * a cache of templates in front of the model) and LogBatcher (Xiao et al., 2024: templates asked
 * about in batches), each template is asked about once: answers are cached by template text.
 *
 * The limits are held here, not by the model: how many templates and calls per review, how long
 * the prompt is, and every answer is checked against the messages before it is used (a template
 * must match each of its messages; a merge must match the other template's messages). The
 * advisor is a port: the caller sends the prompt to its configured model and returns the reply
 * with the tokens it used, which the caller adds to its ledger.
 */
import * as z from 'zod';
import { WILDCARD } from './mask.ts';
import type { MinedRecords } from './mine.ts';
import type { MinedTemplate } from './template-groups.ts';

/** Tokens an advisor call used, for the caller's ledger. */
export interface AdvisorUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Sends `prompt` to a model; returns its text reply and the tokens used. */
export type TemplateAdvisor = (prompt: string) => Promise<{ text: string; usage: AdvisorUsage }>;

/** What a model may answer for one template: a better template, or the id of the same event. */
const Answer = z.object({
  id: z.string().min(1),
  template: z.string().min(1).max(1000).optional(),
  sameAs: z.string().min(1).optional(),
});
const Reply = z.object({ answers: z.array(Answer).max(100) });

/** A cached verdict, by template text (ids change from run to run; texts do not). */
interface Verdict {
  template?: string;
  sameAs?: string;
}

/** Answers remembered across reviews, by template text, so each template is asked about once. */
export class TemplateReviewCache {
  readonly #max: number;
  readonly #verdicts = new Map<string, Verdict>();

  /** @param max most templates remembered; the oldest is forgotten first. */
  constructor(max = 10_000) {
    this.#max = max;
  }

  get size(): number {
    return this.#verdicts.size;
  }

  get(template: string): Verdict | undefined {
    return this.#verdicts.get(template);
  }

  set(template: string, verdict: Verdict): void {
    if (this.#verdicts.size >= this.#max && !this.#verdicts.has(template)) {
      const oldest = this.#verdicts.keys().next().value;
      if (oldest !== undefined) this.#verdicts.delete(oldest);
    }
    this.#verdicts.set(template, verdict);
  }
}

/** Options of `reviewTemplates`. */
export interface ReviewOptions {
  advisor: TemplateAdvisor;
  /** Shared across reviews; without it, answers last one review. */
  cache?: TemplateReviewCache;
  /** Most templates asked about in one review (one call). @default 8 */
  maxTemplates?: number;
  /** Templates with at most this many messages are the uncertain ones. @default 3 */
  maxEvidence?: number;
  /** Messages shown per template. @default 3 */
  examples?: number;
  /** Messages and templates are cut to this many characters in the prompt. @default 240 */
  maxLineChars?: number;
}

/** What a review did: the templates after it, and its counts for the caller's ledger and logs. */
export interface TemplateReview {
  mined: MinedRecords;
  /** Templates sent to the model (0 or 1 call). */
  asked: number;
  /** Templates answered from the cache. */
  cached: number;
  /** Answers used: templates renamed or merged. */
  applied: number;
  /** Answers refused: unknown ids, templates that do not match their messages, bad merges. */
  refused: number;
  calls: number;
  usage: AdvisorUsage;
}

/** A template as a pattern: `<*>` matches any text, a whitespace run any whitespace run. */
export function templatePattern(template: string): RegExp {
  const parts = template
    .split(WILDCARD)
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
  return new RegExp(`^\\s*${parts.join('[\\s\\S]*?')}\\s*$`);
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** How the review's prompt begins (the sandbox's offline model recognises it by this). */
export const ADVISOR_PROMPT_START = 'These log templates were mined from log lines';

/** The prompt for one batch: the rules of a template, then each template with its messages. */
function advisorPrompt(
  questions: readonly { id: string; template: string; examples: readonly string[] }[],
  others: readonly MinedTemplate[],
  maxLineChars = 240,
): string {
  const lines = [
    `${ADVISOR_PROMPT_START}; \`<*>\` marks a variable part. Each was seen only a few times,`,
    'so a variable may be written as a constant or a constant as a variable. For each template, answer either',
    'a corrected template (variables as `<*>`, constants as written; it must match every message shown) or, if it',
    'is the same event as another template listed, that template id. Leave out templates that are right.',
    'Answer JSON only: {"answers":[{"id":"<id>","template":"<template>"} or {"id":"<id>","sameAs":"<id>"}]}',
    '',
    'Templates to check:',
  ];
  for (const q of questions) {
    lines.push(`- id ${q.id}: ${cut(q.template, maxLineChars)}`);
    for (const e of q.examples) lines.push(`    message: ${cut(e, maxLineChars)}`);
  }
  if (others.length > 0) {
    lines.push('', 'Other templates (for sameAs):');
    for (const t of others) lines.push(`- id ${t.id}: ${cut(t.template, maxLineChars)}`);
  }
  return lines.join('\n');
}

/** The answers in a model's reply (the first JSON object in it), or none when it has none. */
export function parseAdvisorReply(text: string): z.infer<typeof Answer>[] {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return [];
  try {
    const parsed = Reply.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data.answers : [];
  } catch {
    return [];
  }
}

/**
 * Asks `options.advisor` about the uncertain templates of `mined` (at most one call), uses the
 * answers that hold against the messages, and returns the templates after them with the counts.
 * `messages[i]` is the message whose template id is `mined.templateIds[i]`.
 */
export async function reviewTemplates(
  messages: readonly string[],
  mined: MinedRecords,
  options: ReviewOptions,
): Promise<TemplateReview> {
  const cache = options.cache ?? new TemplateReviewCache();
  const perTemplate = options.examples ?? 3;
  const examples = new Map<string, string[]>();
  mined.templateIds.forEach((id, i) => {
    const list = examples.get(id) ?? [];
    if (list.length < perTemplate && !list.includes(messages[i] ?? '')) list.push(messages[i] ?? '');
    examples.set(id, list);
  });
  const uncertain = mined.templates
    .filter((t) => t.count <= (options.maxEvidence ?? 3))
    .sort((a, b) => a.count - b.count || a.id.localeCompare(b.id, 'en', { numeric: true }));
  const verdicts = new Map<string, Verdict>();
  const toAsk: MinedTemplate[] = [];
  let cached = 0;
  for (const t of uncertain) {
    const known = cache.get(t.template);
    if (known !== undefined) {
      verdicts.set(t.id, known);
      cached++;
    } else if (toAsk.length < (options.maxTemplates ?? 8)) toAsk.push(t);
  }
  const usage: AdvisorUsage = { inputTokens: 0, outputTokens: 0 };
  let refused = 0;
  if (toAsk.length > 0) {
    const asked = new Set(toAsk.map((t) => t.id));
    const prompt = advisorPrompt(
      toAsk.map((t) => ({ id: t.id, template: t.template, examples: examples.get(t.id) ?? [] })),
      mined.templates.filter((t) => !asked.has(t.id)).slice(0, 50),
      options.maxLineChars,
    );
    const reply = await options.advisor(prompt);
    usage.inputTokens += reply.usage.inputTokens;
    usage.outputTokens += reply.usage.outputTokens;
    for (const t of toAsk) cache.set(t.template, {});
    for (const answer of parseAdvisorReply(reply.text)) {
      const t = toAsk.find((x) => x.id === answer.id);
      if (t === undefined) {
        refused++;
        continue;
      }
      const sameAs = answer.sameAs === undefined ? undefined : mined.text.get(answer.sameAs);
      const verdict: Verdict =
        sameAs !== undefined ? { sameAs } : answer.template ? { template: answer.template } : {};
      cache.set(t.template, verdict);
      verdicts.set(t.id, verdict);
    }
  }
  const applied = apply(mined, verdicts, examples);
  return {
    mined: applied.mined,
    asked: toAsk.length,
    cached,
    applied: applied.applied,
    refused: refused + applied.refused,
    calls: toAsk.length > 0 ? 1 : 0,
    usage,
  };
}

/** Uses each verdict that holds against the messages: renames first, then merges. */
function apply(
  mined: MinedRecords,
  verdicts: Map<string, Verdict>,
  examples: Map<string, string[]>,
): { mined: MinedRecords; applied: number; refused: number } {
  const text = new Map(mined.text);
  const holds = (template: string, id: string) =>
    (examples.get(id) ?? []).every((m) => templatePattern(template).test(m));
  let applied = 0;
  let refused = 0;
  for (const [id, v] of verdicts) {
    if (v.template === undefined || v.template === text.get(id)) continue;
    if (holds(v.template, id)) {
      text.set(id, v.template);
      applied++;
    } else refused++;
  }
  const byText = new Map<string, string>();
  for (const t of mined.templates) byText.set(mined.text.get(t.id) ?? '', t.id);
  const into = new Map<string, string>();
  for (const [id, v] of verdicts) {
    if (v.sameAs === undefined) continue;
    const target = byText.get(v.sameAs);
    const targetText = target === undefined ? undefined : text.get(target);
    const chained = target !== undefined && verdicts.get(target)?.sameAs !== undefined;
    if (
      target === undefined ||
      target === id ||
      chained ||
      targetText === undefined ||
      !holds(targetText, id)
    ) {
      refused++;
      continue;
    }
    into.set(id, target);
    applied++;
  }
  const templateIds = mined.templateIds.map((id) => into.get(id) ?? id);
  const counts = new Map<string, number>();
  for (const id of templateIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  const templates = mined.templates
    .filter((t) => !into.has(t.id))
    .map((t) => ({ id: t.id, template: text.get(t.id) ?? t.template, count: counts.get(t.id) ?? t.count }))
    .sort((a, b) => b.count - a.count || a.id.localeCompare(b.id, 'en', { numeric: true }));
  for (const id of into.keys()) text.delete(id);
  const samples = new Map([...mined.samples].filter(([id]) => !into.has(id)));
  return { mined: { templates, templateIds, text, samples }, applied, refused };
}
