import type * as z from 'zod';

/**
 * Unknown keys at any depth of a configuration, found by walking the value beside its zod
 * schema: an object schema without a catch-all knows exactly its keys, whether zod would strip
 * the others (`z.object`) or refuse them (`z.strictObject`). Each unknown key comes with the
 * nearest known name, since a typo (`bugReport` for `bugReports`) is the likeliest cause.
 */

export interface UnknownKey {
  /** Path of the unknown key, e.g. `['channels', 'bugReport']`. */
  readonly path: readonly (string | number)[];
  /** The nearest known key at the same place, when one is near enough to be a typo. */
  readonly suggestion?: string;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  valueType?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
};

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional']);

/** The schema under wrappers (defaults, optionals, pipes' input side). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else if (def.type === 'lazy' && def.getter) current = def.getter();
    else return current;
  }
  return current;
}

/** Every unknown key in `value` by `schema`, depth first. */
export function unknownKeys(schema: z.ZodType, value: unknown, path: (string | number)[] = []): UnknownKey[] {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'union' && def.options) return unknownInUnion(def, value, path);
  if (def.type === 'intersection' && def.left && def.right)
    return [...unknownKeys(def.left, value, path), ...unknownKeys(def.right, value, path)];
  if (Array.isArray(value)) {
    if (def.type !== 'array' || !def.element) return [];
    const element = def.element;
    return value.flatMap((item, index) => unknownKeys(element, item, [...path, index]));
  }
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value as Record<string, unknown>);
  if (def.type === 'record' && def.valueType) {
    const valueType = def.valueType;
    return entries.flatMap(([key, item]) => unknownKeys(valueType, item, [...path, key]));
  }
  if (def.type !== 'object' || !def.shape) return [];
  const shape = def.shape;
  const catchall = def.catchall && defOf(def.catchall).type !== 'never' ? def.catchall : undefined;
  return entries.flatMap(([key, item]): UnknownKey[] => {
    const known = shape[key];
    if (known !== undefined) return unknownKeys(known, item, [...path, key]);
    if (catchall !== undefined) return unknownKeys(catchall, item, [...path, key]);
    const suggestion = nearest(key, Object.keys(shape));
    return [{ path: [...path, key], ...(suggestion === undefined ? {} : { suggestion }) }];
  });
}

/** A discriminated union walks the option its discriminator picks; another union, the option with fewest unknowns. */
function unknownInUnion(def: Def, value: unknown, path: (string | number)[]): UnknownKey[] {
  const options = def.options ?? [];
  if (def.discriminator !== undefined && value !== null && typeof value === 'object') {
    const tag = (value as Record<string, unknown>)[def.discriminator];
    const picked = options.find((option) => {
      const shape = defOf(unwrap(option)).shape;
      const literal = shape?.[def.discriminator as string];
      const values = literal ? (defOf(literal) as { values?: unknown[] }).values : undefined;
      return values?.includes(tag) === true;
    });
    if (picked !== undefined) return unknownKeys(picked, value, path);
    return [];
  }
  const results = options.map((option) => unknownKeys(option, value, path));
  return (
    results.reduce<UnknownKey[] | undefined>(
      (best, result) => (best === undefined || result.length < best.length ? result : best),
      undefined,
    ) ?? []
  );
}

/**
 * The known name nearest to `key` (Damerau-Levenshtein, case-insensitive), when close enough to
 * be a typo: at most a third of the longer name's letters apart (at least 1, at most 3).
 */
export function nearest(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  if (best === undefined) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(key.length, best.name.length) / 3)));
  return best.distance <= allowed ? best.name : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  const at = (i: number, j: number) => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      d[i * cols + j] = value;
    }
  }
  return at(a.length, b.length);
}
