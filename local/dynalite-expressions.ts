import { createRequire } from 'node:module';

/**
 * dynalite parses every expression of every request (update, condition, key condition, filter,
 * projection) with its PEG parsers, and a sandbox or a protocol test sends the same few dozen
 * expressions thousands of times: in CPU profiles of the wait/wake property test the parsing
 * was about a tenth of the process, more than the store's own logic. This keeps each parse's
 * result by what it depends on, and gives a later request with the same expression the same
 * tree, its own values put in.
 *
 * What a parse depends on, from dynalite's grammars: the expression, the attribute names it
 * resolves (`#name` to `name`), and of each attribute value only its type (the checks a parser
 * makes of a value: `size` of a number, `list_append` of a string, `+` of a list), except in
 * two places that read the value itself, `BETWEEN`'s bounds (compared) and `attribute_type`'s
 * type name. An expression with either, or a value object dynalite's grammar would treat as a
 * resolved path (one with `attrType`), is parsed as before, every time. A parse that fails is
 * not kept either: the next request with that expression parses it again and gets dynalite's
 * own message.
 *
 * A kept tree is dynalite's own result for stand-in values of the same types; a request gets a
 * copy whose stand-ins are its values (the very objects of its request, as the parser itself
 * would place them), and the names and values the expression used are struck from the
 * request's unused sets as the parser strikes them (dynalite reports an unused one as an error
 * after every expression is parsed).
 */

interface ParseContext {
  attrNames?: Record<string, string>;
  attrVals?: Record<string, Record<string, unknown>>;
  unusedAttrNames?: Record<string, boolean>;
  unusedAttrVals?: Record<string, boolean>;
  [other: string]: unknown;
}
interface Parser {
  parse(input: string, options: { context: ParseContext }): unknown;
  [MEMO]?: Memo;
  [ORIGINAL]?: Parser['parse'];
}
type Memo = Parser['parse'] & { counts: { kept: number; parsed: number } };
interface Kept {
  tree: unknown;
  /** The stand-in objects in `tree`, by the value name they stand for. */
  standIns: Map<object, string>;
  usedNames: string[];
  usedValues: string[];
}

// Process-wide symbols: a test worker evaluates this module again after a module reset, and the
// parsers it finds are the ones an earlier evaluation already fronted.
const MEMO = Symbol.for('slack-agents.dynalite.expressionMemo');
const ORIGINAL = Symbol.for('slack-agents.dynalite.expressionParse');
/** The types dynalite's grammars test for, in their order (`getImmediateType`). */
const TYPES = ['S', 'N', 'B', 'NULL', 'BOOL', 'SS', 'NS', 'BS', 'L', 'M'] as const;
/** Expressions whose parse reads a value itself, not only its type. */
const READS_VALUES = /between|attribute_type/i;
/** Distinct expressions kept per parser before the memo starts over (a sandbox uses a few hundred). */
const MAX_KEPT = 5_000;

const require = createRequire(import.meta.url);
const PARSERS = ['conditionParser', 'updateParser', 'projectionParser'] as const;

/**
 * Puts the memo in front of dynalite's three expression parsers (`keep` false takes it away),
 * for every dynalite of this process: they share the parser modules. Says whether it was there.
 */
export function keepDynaliteExpressions(keep = true): boolean {
  let was = false;
  for (const name of PARSERS) {
    const parser = require(`dynalite/db/${name}`) as Parser;
    parser[ORIGINAL] ??= parser.parse;
    was = parser[MEMO] !== undefined;
    if (keep) parser[MEMO] ??= memoized(parser[ORIGINAL].bind(parser));
    else delete parser[MEMO];
    parser.parse = parser[MEMO] ?? parser[ORIGINAL];
  }
  return was;
}

/**
 * How often the parsers' memos answered a request from a kept tree, and how often a parser ran
 * (a first sight, a failed parse, or an expression that reads values), since the memo went in.
 */
export function dynaliteExpressionCounts(): { kept: number; parsed: number } {
  const counts = { kept: 0, parsed: 0 };
  for (const name of PARSERS) {
    const memo = (require(`dynalite/db/${name}`) as Parser)[MEMO];
    counts.kept += memo?.counts.kept ?? 0;
    counts.parsed += memo?.counts.parsed ?? 0;
  }
  return counts;
}

/** `parse` with the memo in front of it. */
function memoized(parse: Parser['parse']): Memo {
  const kept = new Map<string, Kept>();
  const counts = { kept: 0, parsed: 0 };
  const parseAnew: Parser['parse'] = (input, options) => {
    counts.parsed += 1;
    return parse(input, options);
  };
  const memo = (input: string, options: { context: ParseContext }) => {
    const context = options.context;
    const key = keyOf(input, context);
    if (key === undefined) return parseAnew(input, options);
    let entry = kept.get(key);
    if (entry === undefined) {
      entry = parseWithStandIns(parseAnew, input, context);
      if (entry === undefined) return parseAnew(input, options);
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(key, entry);
    } else {
      counts.kept += 1;
    }
    for (const name of entry.usedNames) if (context.unusedAttrNames) delete context.unusedAttrNames[name];
    for (const name of entry.usedValues) if (context.unusedAttrVals) delete context.unusedAttrVals[name];
    const values = context.attrVals ?? {};
    return copyOf(entry.tree, (standIn) => {
      const name = entry.standIns.get(standIn);
      return name === undefined ? undefined : values[name];
    });
  };
  return Object.assign(memo, { counts });
}

/** What the parse of `input` depends on, or undefined when it reads more than types. */
function keyOf(input: string, context: ParseContext): string | undefined {
  if (READS_VALUES.test(input)) return undefined;
  let types = '';
  for (const [name, value] of Object.entries(context.attrVals ?? {})) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || 'attrType' in value)
      return undefined;
    types += `${name}=${typeOf(value) ?? '-'};`;
  }
  return `${input}\u0000${JSON.stringify(context.attrNames ?? null)}\u0000${types}`;
}

function typeOf(value: Record<string, unknown>): string | undefined {
  return TYPES.find((type) => value[type] != null);
}

/**
 * dynalite's parse of `input` with each value replaced by a stand-in of its type, and the names
 * and values it struck from the unused sets; undefined when the parse fails.
 */
function parseWithStandIns(parse: Parser['parse'], input: string, context: ParseContext): Kept | undefined {
  const standIns = new Map<object, string>();
  const attrVals: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(context.attrVals ?? {})) {
    const type = typeOf(value);
    const standIn = type === undefined ? {} : { [type]: true };
    standIns.set(standIn, name);
    attrVals[name] = standIn;
  }
  const unusedAttrNames = Object.fromEntries(
    Object.keys(context.attrNames ?? {}).map((name) => [name, true]),
  );
  const unusedAttrVals = Object.fromEntries(Object.keys(attrVals).map((name) => [name, true]));
  let tree: unknown;
  try {
    tree = parse(input, {
      context: {
        ...context,
        ...(context.attrVals !== undefined && { attrVals }),
        unusedAttrNames,
        unusedAttrVals,
      },
    });
  } catch {
    return undefined;
  }
  // dynalite's parsers answer a semantic error as a string: parsed again, with the real values.
  if (typeof tree === 'string') return undefined;
  return {
    tree,
    standIns,
    usedNames: Object.keys(context.attrNames ?? {}).filter((name) => !(name in unusedAttrNames)),
    usedValues: Object.keys(attrVals).filter((name) => !(name in unusedAttrVals)),
  };
}

/** A deep copy of a parse tree (arrays and objects, each with its prototype), stand-ins swapped. */
function copyOf(node: unknown, swap: (standIn: object) => unknown): unknown {
  if (node === null || typeof node !== 'object') return node;
  const swapped = swap(node);
  if (swapped !== undefined) return swapped;
  if (Array.isArray(node)) return node.map((item) => copyOf(item, swap));
  const copy = Object.create(Object.getPrototypeOf(node)) as Record<string, unknown>;
  for (const [key, value] of Object.entries(node)) copy[key] = copyOf(value, swap);
  return copy;
}
