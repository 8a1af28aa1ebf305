import { DEFAULT_REDACTION, type RedactionSettings } from './config.ts';
import { disjoint, type Finding } from './findings.ts';
import { PLACEHOLDER, placeholder } from './placeholder.ts';
import { noteMade } from './tally.ts';

/**
 * The finders (finders.ts), loaded on the first text redacted: secretlint's rules and re2js
 * are about 240 kB, which every function that stores or posts would otherwise compile at its
 * cold start, before it has anything to redact (`npm run bench:cold-import`).
 */
let finders: Promise<typeof import('./finders.ts')> | undefined;
const loadFinders = () => {
  finders ??= import('./finders.ts');
  return finders;
};

/** Values redacted, by `family:kind` (`secret:aws-access-key`, `pii:email`). Never the values. */
export type RedactionCounts = Record<string, number>;

export interface Redacted {
  text: string;
  counts: RedactionCounts;
}

/**
 * The redaction layer: secrets by a maintained rule set (secret-rules.ts) and by shape
 * (shapes.ts), personal data by the configured classes (pii.ts), the allow list honoured,
 * each value replaced by a typed placeholder stable within `scope` (the conversation).
 */
export class Redactor {
  private readonly allowed: ReadonlySet<string>;

  constructor(
    /** The conversation the placeholders' tags are keyed by. */
    readonly scope: string,
    private readonly settings: RedactionSettings = DEFAULT_REDACTION,
    /**
     * The conversation whose ledger counts what this redactor replaces (lambdas/redaction/tally.ts);
     * none for a door that works for no conversation the ledger knows.
     */
    private readonly countFor?: string,
  ) {
    this.allowed = new Set(settings.allow);
  }

  /** The same redactor for another conversation. */
  forScope(scope: string): Redactor {
    return new Redactor(scope, this.settings, this.countFor === undefined ? undefined : scope);
  }

  async redact(text: string): Promise<Redacted> {
    if (text.length === 0) return { text, counts: {} };
    // Placeholders already in the text are findings of their own, so nothing inside one
    // (`secret:` reads like a key) is taken again; they are dropped before replacing.
    const { findAll } = await loadFinders();
    const found = disjoint([...placeholdersIn(text), ...(await findAll(text, this.settings.pii))]).filter(
      (finding) =>
        finding.family !== 'placeholder' && !this.allowed.has(text.slice(finding.start, finding.end)),
    );
    if (found.length === 0) return { text, counts: {} };
    const counts: RedactionCounts = {};
    const made = new Set<string>();
    let out = '';
    let from = 0;
    for (const finding of found) {
      const value = text.slice(finding.start, finding.end);
      const replacement = placeholder(finding, value, this.scope);
      out += text.slice(from, finding.start) + replacement;
      made.add(replacement);
      from = finding.end;
      const key = `${finding.family}:${finding.kind}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    if (this.countFor !== undefined) noteMade(this.countFor, made);
    return { text: out + text.slice(from), counts };
  }

  /** Redacts every string in a JSON-shaped value (a Slack message's blocks, an API body). */
  async redactValue<T>(
    value: T,
    counts: RedactionCounts = {},
  ): Promise<{ value: T; counts: RedactionCounts }> {
    const walk = async (node: unknown): Promise<unknown> => {
      if (typeof node === 'string') {
        const redacted = await this.redact(node);
        addCounts(counts, redacted.counts);
        return redacted.text;
      }
      if (Array.isArray(node)) {
        const out: unknown[] = [];
        for (const item of node) out.push(await walk(item));
        return out;
      }
      if (node !== null && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
        const out: Record<string, unknown> = {};
        for (const [key, item] of Object.entries(node)) out[key] = await walk(item);
        return out;
      }
      return node;
    };
    return { value: (await walk(value)) as T, counts };
  }
}

function placeholdersIn(text: string): Finding[] {
  if (!text.includes('#')) return [];
  return [...text.matchAll(PLACEHOLDER)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
    family: 'placeholder',
    kind: 'placeholder',
  }));
}

export function addCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [kind, count] of Object.entries(more)) into[kind] = (into[kind] ?? 0) + count;
  return into;
}

/** Values redacted in all, for a line that says how many. */
export function totalOf(counts: RedactionCounts): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

/** Values redacted by family, for the conversation's ledger. */
export function familyTotals(counts: RedactionCounts): { secret: number; pii: number } {
  const totals = { secret: 0, pii: 0 };
  for (const [key, count] of Object.entries(counts)) {
    if (key.startsWith('secret:')) totals.secret += count;
    else if (key.startsWith('pii:')) totals.pii += count;
  }
  return totals;
}

/**
 * What a tool call's outcome line adds when values were redacted: how many, of which kinds,
 * most first (` · redacted 3: 2 aws-access-key, 1 email`); empty when none. Never the values.
 */
export function redactionNote(counts: RedactionCounts = {}): string {
  const total = totalOf(counts);
  if (total === 0) return '';
  const kinds = Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([key, count]) => `${count} ${key.slice(key.indexOf(':') + 1)}`);
  return ` · redacted ${total}: ${kinds.join(', ')}`;
}
