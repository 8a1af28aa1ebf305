import { invalidParameter } from './errors.ts';

/**
 * CloudWatch Logs filter patterns (`FilterLogEvents.filterPattern`), the subset the platform's
 * tools write and that unstructured logs need:
 *
 * - terms: `ERROR timeout` matches events containing every term (case-sensitive, anywhere in
 *   the message, as CloudWatch and moto match them);
 * - quoted phrases: `"provider timeout"` as one term, with spaces and punctuation;
 * - `?term ?term`: events containing any of them (CloudWatch's OR; every term must be marked);
 * - `-term` after at least one positive term: events that do not contain it;
 * - `{ $.level = "ERROR" }`, `{ $.latencyMs > 1000 }`: JSON events by a field (`=`, `!=`,
 *   `<`, `<=`, `>`, `>=`, `&&`, `||`; `*` as a wildcard in a string).
 *
 * Anything else (space-delimited `[a, b]` patterns, regular expressions `%...%`) is refused
 * with `InvalidParameterException`, rather than matched loosely: a test against this emulator
 * must not pass with a pattern CloudWatch would read differently.
 */
export type MessageFilter = (message: string) => boolean;

export function compileFilterPattern(pattern: string | undefined): MessageFilter {
  const text = (pattern ?? '').trim();
  if (text === '') return () => true;
  if (text.startsWith('{')) return compileJsonPattern(text);
  if (text.startsWith('[') || text.startsWith('%'))
    throw invalidParameter(
      `filterPattern ${JSON.stringify(text)}: this emulator supports terms, quoted phrases, ?terms, -terms and { $.field op value } patterns`,
    );
  const terms = tokenizeTerms(text);
  const optional = terms.filter((t) => t.kind === 'optional').map((t) => t.text);
  const required = terms.filter((t) => t.kind === 'required').map((t) => t.text);
  const excluded = terms.filter((t) => t.kind === 'excluded').map((t) => t.text);
  if (optional.length > 0 && (required.length > 0 || excluded.length > 0))
    throw invalidParameter(`filterPattern ${JSON.stringify(text)}: mix ?terms with no other kind of term`);
  if (excluded.length > 0 && required.length === 0)
    throw invalidParameter(`filterPattern ${JSON.stringify(text)}: a -term needs a positive term before it`);
  if (optional.length > 0) return (message) => optional.some((t) => message.includes(t));
  return (message) =>
    required.every((t) => message.includes(t)) && !excluded.some((t) => message.includes(t));
}

interface Term {
  kind: 'required' | 'optional' | 'excluded';
  text: string;
}

function tokenizeTerms(text: string): Term[] {
  const terms: Term[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i] ?? '')) {
      i++;
      continue;
    }
    let kind: Term['kind'] = 'required';
    if (text[i] === '?' || text[i] === '-') {
      kind = text[i] === '?' ? 'optional' : 'excluded';
      i++;
    }
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw invalidParameter(`filterPattern: unterminated quoted phrase at ${i}`);
      terms.push({ kind, text: text.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const start = i;
    while (i < text.length && !/\s/.test(text[i] ?? '')) i++;
    const word = text.slice(start, i);
    if (word === '') throw invalidParameter(`filterPattern: an empty term at ${start}`);
    terms.push({ kind, text: word });
  }
  return terms;
}

type JsonCondition = (value: Record<string, unknown>) => boolean;

/** `{ $.a.b = "x" && $.n > 3 }`: left to right, `&&` binding tighter than `||`, parentheses allowed. */
function compileJsonPattern(text: string): MessageFilter {
  if (!text.endsWith('}')) throw invalidParameter('filterPattern: a JSON pattern ends with }');
  const body = text.slice(1, -1);
  const tokens =
    body.match(/\$\.[A-Za-z0-9_.[\]]+|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|&&|\|\||!=|<=|>=|[=<>()]|\S+/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (why: string): never => {
    throw invalidParameter(`filterPattern ${JSON.stringify(text)}: ${why}`);
  };
  const primary = (): JsonCondition => {
    if (peek() === '(') {
      pos++;
      const inner = or();
      if (tokens[pos++] !== ')') fail('missing )');
      return inner;
    }
    const selector = tokens[pos++] ?? fail('expected a $.field selector');
    if (!selector.startsWith('$.')) fail(`expected a $.field selector, got ${selector}`);
    const op = tokens[pos++] ?? fail('expected an operator');
    if (!['=', '!=', '<', '<=', '>', '>='].includes(op)) fail(`unsupported operator ${op}`);
    const raw = tokens[pos++] ?? fail('expected a value');
    const path = selector.slice(2).split('.');
    const value: string | number = raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
    if (typeof value === 'number' && Number.isNaN(value)) fail(`unsupported value ${raw}`);
    return (event) => compare(pick(event, path), op, value);
  };
  const and = (): JsonCondition => {
    let left = primary();
    while (peek() === '&&') {
      pos++;
      const l = left;
      const r = primary();
      left = (e) => l(e) && r(e);
    }
    return left;
  };
  const or = (): JsonCondition => {
    let left = and();
    while (peek() === '||') {
      pos++;
      const l = left;
      const r = and();
      left = (e) => l(e) || r(e);
    }
    return left;
  };
  const condition = or();
  if (pos !== tokens.length) fail(`unexpected ${tokens[pos]}`);
  return (message) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return false;
    }
    return typeof parsed === 'object' && parsed !== null && condition(parsed as Record<string, unknown>);
  };
}

function pick(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function compare(actual: unknown, op: string, expected: string | number): boolean {
  if (actual === undefined) return false;
  if (typeof expected === 'string') {
    if (op !== '=' && op !== '!=') return false;
    const re = new RegExp(`^${expected.split('*').map(escapeRegExp).join('.*')}$`);
    const matches = typeof actual === 'string' && re.test(actual);
    return op === '=' ? matches : !matches;
  }
  const n = typeof actual === 'number' ? actual : Number.NaN;
  if (Number.isNaN(n)) return op === '!=';
  switch (op) {
    case '=':
      return n === expected;
    case '!=':
      return n !== expected;
    case '<':
      return n < expected;
    case '<=':
      return n <= expected;
    case '>':
      return n > expected;
    default:
      return n >= expected;
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
