import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { dynaliteExpressionCounts, keepDynaliteExpressions } from '../../local/dynalite-expressions.ts';

// dynalite's own expression checks: the place its validations call the parsers from.
const validations = createRequire(import.meta.url)('dynalite/validations/index.js') as {
  validateExpressions(data: Request): string | undefined;
};

type Value = Record<string, unknown>;
interface Request {
  UpdateExpression?: string;
  ConditionExpression?: string;
  KeyConditionExpression?: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, Value>;
  [parsed: string]: unknown;
}

const wasKept = keepDynaliteExpressions();
afterAll(() => {
  keepDynaliteExpressions(wasKept);
});

/** What dynalite makes of a request: its message, or the trees it parsed. */
function checked(request: Request, keep: boolean) {
  keepDynaliteExpressions(keep);
  const data: Request = structuredClone(request);
  // The request's own value objects, so a tree can be asked whether it holds them.
  if (request.ExpressionAttributeValues)
    data.ExpressionAttributeValues = { ...request.ExpressionAttributeValues };
  const message = validations.validateExpressions(data);
  const trees = Object.fromEntries(Object.entries(data).filter(([key]) => key.startsWith('_')));
  return { message, trees, values: data.ExpressionAttributeValues };
}

/** Every object in `tree` that is one of `values` (by identity), with where it was found. */
function valuesIn(tree: unknown, values: Record<string, Value> = {}, at = ''): string[] {
  if (tree === null || typeof tree !== 'object') return [];
  const name = Object.entries(values).find(([, value]) => value === tree)?.[0];
  if (name !== undefined) return [`${at}=${name}`];
  return Object.entries(tree).flatMap(([key, child]) => valuesIn(child, values, `${at}/${key}`));
}

// The kinds of value each placeholder may be given, so every type check of the grammars runs
// both ways (a number where a string belongs, a list where a number does, ...).
const KINDS: fc.Arbitrary<Value>[] = [
  fc.string({ maxLength: 4 }).map((S) => ({ S })),
  fc.integer({ min: -5, max: 50 }).map((n) => ({ N: String(n) })),
  fc.boolean().map((BOOL) => ({ BOOL })),
  fc.constant({ NULL: true }),
  fc
    .array(
      fc.string({ maxLength: 3 }).map((S) => ({ S })),
      { maxLength: 2 },
    )
    .map((L) => ({ L })),
  fc.string({ maxLength: 3 }).map((text) => ({ M: { a: { S: text } } })),
  fc.constant({ SS: ['a', 'b'] }),
  fc.constant({ NS: ['1', '2'] }),
];
const SLOTS = 6;
/** Two requests' values: most often of the same kinds (the memo answers), else of any. */
const valuesArb = fc
  .array(fc.nat({ max: KINDS.length - 1 }), { minLength: SLOTS, maxLength: SLOTS })
  .chain((kinds) => {
    const sameKinds = fc.tuple(...kinds.map((kind) => KINDS[kind] as fc.Arbitrary<Value>));
    const anyKinds = fc.tuple(...kinds.map(() => fc.oneof(...KINDS)));
    return fc.tuple(
      sameKinds,
      fc.oneof({ arbitrary: sameKinds, weight: 3 }, { arbitrary: anyKinds, weight: 1 }),
    );
  });

/**
 * Requests as the kernel's stores make them, and ones dynalite refuses (an unknown name, an
 * unused value, a type a function does not take, redundant parentheses, a reserved word, bad
 * syntax, bounds out of order), each with the placeholders its values fill.
 */
const REQUESTS: { request: Request; values: string[] }[] = [
  {
    request: {
      UpdateExpression:
        'SET #s = :s, #n = if_not_exists(#n, :zero) + :one, #l = list_append(if_not_exists(#l, :empty), :l) REMOVE #r ADD #c :one DELETE #set :set',
      ConditionExpression: 'attribute_exists(pk) AND (#s <> :s OR attribute_not_exists(#s))',
      ExpressionAttributeNames: {
        '#s': 'status',
        '#n': 'count',
        '#l': 'list',
        '#r': 'gone',
        '#c': 'adds',
        '#set': 'tags',
      },
    },
    values: [':s', ':zero', ':one', ':empty', ':l', ':set'],
  },
  {
    request: {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: 'size(#body) > :n AND contains(#tags, :tag) AND #state IN (:a, :b)',
      ProjectionExpression: '#body, #tags[1], nested.#state',
      ExpressionAttributeNames: { '#body': 'body', '#tags': 'tags', '#state': 'state' },
    },
    values: [':pk', ':prefix', ':n', ':tag', ':a', ':b'],
  },
  {
    request: {
      ConditionExpression: 'NOT (#t < :t) AND #w = :w',
      ExpressionAttributeNames: { '#t': 'ttl', '#w': 'wait' },
    },
    values: [':t', ':w'],
  },
  {
    request: { ConditionExpression: '#missing = :v', ExpressionAttributeNames: { '#other': 'x' } },
    values: [':v'],
  },
  { request: { ConditionExpression: 'a = :v' }, values: [':v', ':unused'] },
  { request: { ConditionExpression: 'a = :undefinedValue' }, values: [':v'] },
  { request: { ConditionExpression: '((a = :v))' }, values: [':v'] },
  { request: { ConditionExpression: 'size = :v' }, values: [':v'] },
  { request: { ConditionExpression: 'a = = :v' }, values: [':v'] },
  { request: { ConditionExpression: 'unknown_fn(a) AND a = :v' }, values: [':v'] },
  { request: { ConditionExpression: 'a BETWEEN :low AND :high' }, values: [':low', ':high'] },
  { request: { ConditionExpression: 'attribute_type(a, :type)' }, values: [':type'] },
  { request: { UpdateExpression: 'SET a = :v, a.b = :w' }, values: [':v', ':w'] },
  { request: { UpdateExpression: 'SET a = :v SET b = :w' }, values: [':v', ':w'] },
  { request: { UpdateExpression: 'ADD a :v' }, values: [':v'] },
];

describe("dynalite's expressions, kept between requests", () => {
  it('give what dynalite gives, whatever the values, however often an expression comes again', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.constantFrom(...REQUESTS), valuesArb, ({ request, values }, [first, second]) => {
        const withValues = (given: Value[]): Request => ({
          ...request,
          ExpressionAttributeValues: Object.fromEntries(
            values.map((name, i) => [name, given[i] ?? { S: '' }]),
          ),
        });
        // The first request fills the memo; the second, with other values of the same types or
        // not, is answered from it (or parsed anew where its types differ).
        checked(withValues(first), true);
        const request2 = withValues(second);
        const before = dynaliteExpressionCounts().kept;
        const kept = checked(request2, true);
        answered += dynaliteExpressionCounts().kept - before;
        const parsed = checked(request2, false);
        expect(kept.message).toEqual(parsed.message);
        expect(kept.trees).toEqual(parsed.trees);
        expect(valuesIn(kept.trees, kept.values)).toEqual(valuesIn(parsed.trees, parsed.values));
      }),
      { numRuns: 400 },
    );
    // Some second requests were answered from the memo (those that parse: most of these
    // requests are refused, and a refusal is parsed anew every time).
    expect(answered).toBeGreaterThan(0);
  });

  it('answer a request the store makes again from the memo, with its own values', () => {
    const update = (status: string, count: string): Request => ({
      UpdateExpression: 'SET #s = :s, #n = if_not_exists(#n, :zero) + :one',
      ConditionExpression: 'attribute_exists(pk) AND #s <> :s',
      ExpressionAttributeNames: { '#s': 'status', '#n': 'count' },
      ExpressionAttributeValues: { ':s': { S: status }, ':zero': { N: '0' }, ':one': { N: count } },
    });
    checked(update('open', '1'), true);
    const before = dynaliteExpressionCounts();
    const kept = checked(update('closed', '2'), true);
    const after = dynaliteExpressionCounts();
    expect(after.kept - before.kept).toBe(2);
    expect(after.parsed - before.parsed).toBe(0);
    expect(kept.trees).toEqual(checked(update('closed', '2'), false).trees);
  });

  it("parse anew where a value itself matters: BETWEEN's bounds and attribute_type's type name", () => {
    const between = (type: 'N' | 'S', low: string, high: string): Request => ({
      ConditionExpression: 'a BETWEEN :low AND :high',
      ExpressionAttributeValues: { ':low': { [type]: low }, ':high': { [type]: high } },
    });
    const typed = (type: string): Request => ({
      ConditionExpression: 'attribute_type(a, :type)',
      ExpressionAttributeValues: { ':type': { S: type } },
    });
    for (const [good, bad] of [
      [between('N', '1', '2'), between('N', '3', '2')],
      [between('S', 'a', 'b'), between('S', 'c', 'b')],
      [typed('S'), typed('X')],
    ] as const) {
      expect(checked(good, true).message).toBeUndefined();
      const refused = checked(bad, true).message;
      expect(refused).toMatch(/BETWEEN operator requires upper bound|Invalid attribute type name/);
      expect(refused).toBe(checked(bad, false).message);
    }
  });

  it('hand each request its own value objects, as the parser places them', () => {
    const request = (text: string): Request => ({
      UpdateExpression: 'SET #a = :a, #b = :a',
      ExpressionAttributeNames: { '#a': 'a', '#b': 'b' },
      ExpressionAttributeValues: { ':a': { S: text } },
    });
    checked(request('first'), true);
    const second = checked(request('second'), true);
    expect(second.message).toBeUndefined();
    expect(valuesIn(second.trees, second.values)).toEqual([
      '/_updates/sections/0/val=:a',
      '/_updates/sections/1/val=:a',
    ]);
    expect(JSON.stringify(second.trees)).toContain('second');
    expect(JSON.stringify(second.trees)).not.toContain('first');
  });

  it('is in front of the parsers once, however often it is asked for', () => {
    const parser = createRequire(import.meta.url)('dynalite/db/conditionParser') as { parse: unknown };
    keepDynaliteExpressions(true);
    const fronted = parser.parse;
    keepDynaliteExpressions(true);
    expect(parser.parse).toBe(fronted);
    keepDynaliteExpressions(false);
    expect(parser.parse).not.toBe(fronted);
  });
});
