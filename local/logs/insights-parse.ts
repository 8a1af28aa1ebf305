import { malformedQuery } from './errors.ts';

/**
 * A parser of the Logs Insights query language, for the subset this emulator runs:
 *
 *   fields f1, f2 | filter <condition> | stats count(*) as n, avg(f) by bin(5m), f
 *   | sort f desc | limit 20
 *
 * Conditions: `=`, `!=`, `<`, `<=`, `>`, `>=`, `like /regex/` or `like "text"`, `not like`,
 * `in ["a", "b"]`, `ispresent(f)`, `and`, `or`, `not`, parentheses. Aggregates: `count(*)`,
 * `count(f)`, `sum`, `avg`, `min`, `max`. Groups: fields and `bin(<n><s|m|h|d>)`. Any other
 * command (`parse`, `dedup`, `display`, `pattern`...) or function is refused with
 * `MalformedQueryException` and the offsets of what was not understood, the real service's
 * error shape, so a caller sees exactly what is unsupported instead of a silently wrong answer.
 */

export type Value = string | number;
export type Condition =
  | { kind: 'and' | 'or'; left: Condition; right: Condition }
  | { kind: 'not'; inner: Condition }
  | { kind: 'compare'; field: string; op: '=' | '!=' | '<' | '<=' | '>' | '>='; value: Value }
  | { kind: 'like'; field: string; pattern: RegExp; negated: boolean }
  | { kind: 'in'; field: string; values: Value[]; negated: boolean }
  | { kind: 'ispresent'; field: string };

export interface Aggregate {
  fn: 'count' | 'sum' | 'avg' | 'min' | 'max';
  /** `*` for `count(*)`. */
  field: string;
  name: string;
}

export type GroupBy =
  | { kind: 'field'; field: string; name: string }
  | { kind: 'bin'; ms: number; name: string };

export type Command =
  | { kind: 'fields'; fields: string[] }
  | { kind: 'filter'; condition: Condition }
  | { kind: 'stats'; aggregates: Aggregate[]; by: GroupBy[] }
  | { kind: 'sort'; keys: { field: string; descending: boolean }[] }
  | { kind: 'limit'; count: number };

interface Token {
  text: string;
  kind: 'word' | 'string' | 'number' | 'regex' | 'punct';
  start: number;
  end: number;
}

const TOKEN =
  /\s+|(?<regex>\/(?:[^/\\]|\\.)*\/)|(?<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?<number>-?\d+(?:\.\d+)?(?![A-Za-z0-9.]))|(?<word>@?[A-Za-z_][A-Za-z0-9_.@-]*|`[^`]+`|\d+[smhd](?![A-Za-z0-9]))|(?<punct>!=|<=|>=|[=<>(),|*[\]])/y;

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < query.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(query);
    if (match === null)
      throw malformedQuery(`unexpected character ${JSON.stringify(query[start])}`, start, start + 1);
    const groups = match.groups ?? {};
    const kind = (['regex', 'string', 'number', 'word', 'punct'] as const).find(
      (k) => groups[k] !== undefined,
    );
    if (kind === undefined) continue;
    tokens.push({ text: match[0], kind, start, end: TOKEN.lastIndex });
  }
  return tokens;
}

const BIN_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseInsightsQuery(query: string): Command[] {
  const tokens = tokenize(query);
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (message: string, token = peek()): never => {
    throw malformedQuery(message, token?.start ?? query.length, token?.end ?? query.length);
  };
  const next = (): Token => tokens[pos++] ?? fail('unexpected end of query');
  const expect = (text: string) => {
    const token = next();
    if (token.text.toLowerCase() !== text) fail(`expected ${text}, got ${token.text}`, token);
  };
  const isWord = (text: string) => peek()?.kind === 'word' && peek()?.text.toLowerCase() === text;
  const field = (): string => {
    const token = next();
    if (token.kind !== 'word') fail(`expected a field name, got ${token.text}`, token);
    return token.text.startsWith('`') ? token.text.slice(1, -1) : token.text;
  };
  const value = (): Value => {
    const token = next();
    if (token.kind === 'number') return Number(token.text);
    if (token.kind === 'string')
      return JSON.parse(`"${token.text.slice(1, -1).replace(/"/g, '\\"')}"`) as string;
    return fail(`expected a string or a number, got ${token.text}`, token);
  };
  const regexOf = (token: Token): RegExp => {
    if (token.kind === 'string')
      return new RegExp(escapeText(String(JSON.parse(`"${token.text.slice(1, -1)}"`))));
    if (token.kind !== 'regex')
      return fail(`expected /regex/ or "text" after like, got ${token.text}`, token);
    let source = token.text.slice(1, -1);
    let flags = '';
    if (source.startsWith('(?i)')) {
      source = source.slice(4);
      flags = 'i';
    }
    try {
      return new RegExp(source, flags);
    } catch {
      return fail(`invalid regular expression ${token.text}`, token);
    }
  };

  const primary = (): Condition => {
    if (peek()?.text === '(') {
      pos++;
      const inner = or();
      expect(')');
      return inner;
    }
    if (isWord('not')) {
      pos++;
      return { kind: 'not', inner: primary() };
    }
    if (isWord('ispresent')) {
      pos++;
      expect('(');
      const f = field();
      expect(')');
      return { kind: 'ispresent', field: f };
    }
    const f = field();
    let negated = false;
    if (isWord('not')) {
      pos++;
      negated = true;
    }
    const op = next();
    const word = op.text.toLowerCase();
    if (word === 'like' || word === '=~')
      return { kind: 'like', field: f, pattern: regexOf(next()), negated };
    if (word === 'in') {
      expect('[');
      const values = [value()];
      while (peek()?.text === ',') {
        pos++;
        values.push(value());
      }
      expect(']');
      return { kind: 'in', field: f, values, negated };
    }
    if (negated) fail(`expected like or in after not, got ${op.text}`, op);
    if (!['=', '!=', '<', '<=', '>', '>='].includes(op.text)) fail(`unsupported operator ${op.text}`, op);
    return { kind: 'compare', field: f, op: op.text as '=', value: value() };
  };
  const and = (): Condition => {
    let left = primary();
    while (isWord('and')) {
      pos++;
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  };
  const or = (): Condition => {
    let left = and();
    while (isWord('or')) {
      pos++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };

  const aggregate = (): Aggregate => {
    const fnToken = next();
    const fn = fnToken.text.toLowerCase();
    if (!['count', 'sum', 'avg', 'min', 'max'].includes(fn))
      fail(
        `unsupported stats function ${fnToken.text} (this emulator runs count, sum, avg, min, max)`,
        fnToken,
      );
    expect('(');
    let f = '*';
    if (peek()?.text === '*') pos++;
    else f = field();
    if (f === '*' && fn !== 'count') fail(`${fn}(*) is not valid`, fnToken);
    expect(')');
    let name = `${fn}(${f})`;
    if (isWord('as')) {
      pos++;
      name = field();
    }
    return { fn: fn as Aggregate['fn'], field: f, name };
  };
  const group = (): GroupBy => {
    if (isWord('bin')) {
      const start = next();
      expect('(');
      const size = next();
      const m = /^(\d+)([smhd])$/.exec(size.text);
      const duration = m === null ? fail(`bin needs a duration like 5m, got ${size.text}`, size) : m;
      expect(')');
      const ms = Number(duration[1]) * (BIN_UNITS[duration[2] ?? 's'] ?? 1000);
      if (ms <= 0) fail('bin needs a positive duration', start);
      return { kind: 'bin', ms, name: `bin(${size.text})` };
    }
    const f = field();
    return { kind: 'field', field: f, name: f };
  };

  const commands: Command[] = [];
  while (pos < tokens.length) {
    const head = next();
    const name = head.text.toLowerCase();
    if (name === 'fields') {
      const fields = [field()];
      while (peek()?.text === ',') {
        pos++;
        fields.push(field());
      }
      commands.push({ kind: 'fields', fields });
    } else if (name === 'filter') {
      commands.push({ kind: 'filter', condition: or() });
    } else if (name === 'stats') {
      const aggregates = [aggregate()];
      while (peek()?.text === ',') {
        pos++;
        aggregates.push(aggregate());
      }
      const by: GroupBy[] = [];
      if (isWord('by')) {
        pos++;
        by.push(group());
        while (peek()?.text === ',') {
          pos++;
          by.push(group());
        }
      }
      commands.push({ kind: 'stats', aggregates, by });
    } else if (name === 'sort') {
      const keys: { field: string; descending: boolean }[] = [];
      do {
        if (keys.length > 0) pos++;
        const f = field();
        let descending = true;
        if (isWord('asc') || isWord('desc')) descending = next().text.toLowerCase() === 'desc';
        keys.push({ field: f, descending });
      } while (peek()?.text === ',');
      commands.push({ kind: 'sort', keys });
    } else if (name === 'limit') {
      const count = next();
      if (count.kind !== 'number' || !Number.isInteger(Number(count.text)) || Number(count.text) < 1)
        fail(`limit needs a positive whole number, got ${count.text}`, count);
      commands.push({ kind: 'limit', count: Number(count.text) });
    } else {
      fail(
        `unsupported command ${head.text}: this emulator runs fields, filter, stats, sort and limit`,
        head,
      );
    }
    if (pos < tokens.length) {
      if (peek()?.text !== '|') fail(`expected | before ${peek()?.text}`);
      pos++;
    }
  }
  if (commands.length === 0) fail('the query is empty');
  return commands;
}

function escapeText(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
