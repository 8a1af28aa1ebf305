import type * as z from 'zod';

/**
 * How a Lambda task's payload template (as Step Functions gets it) meets the zod schema its
 * handler validates: the field names on both sides, with a JSONPath value (`"field.$"`) taken
 * as present (its value is known at run time only) and a literal value parsed by its field's
 * schema. Objects are followed into; a union is met when one of its options is.
 */

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
};

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional, nullable, default, pipe and lazy wrappers. */
function core(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (def.innerType !== undefined) return core(def.innerType);
  if (def.type === 'pipe' && def.in !== undefined) return core(def.in);
  if (def.type === 'lazy' && def.getter !== undefined) return core(def.getter());
  return schema;
}

const isPresentFree = (schema: z.ZodType) => schema.safeParse(undefined).success;

/** The problems of `payload` against `schema`, each naming the field's path; none when it fits. */
export function payloadProblems(schema: z.ZodType, payload: unknown, path = '$'): string[] {
  const inner = core(schema);
  const def = defOf(inner);
  if (def.type === 'union' && def.options !== undefined) {
    const perOption = def.options.map((option) => payloadProblems(option, payload, path));
    if (perOption.some((p) => p.length === 0)) return [];
    return perOption.reduce((best, p) => (p.length < best.length ? p : best));
  }
  if (def.type === 'object' && def.shape !== undefined) {
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      return [`${path}: an object is expected, the payload gives ${JSON.stringify(payload)}`];
    }
    const given = new Map<string, { value: unknown; jsonPath: boolean }>();
    for (const [key, value] of Object.entries(payload)) {
      const jsonPath = key.endsWith('.$');
      given.set(jsonPath ? key.slice(0, -2) : key, { value, jsonPath });
    }
    const problems: string[] = [];
    const open = def.catchall !== undefined && defOf(def.catchall).type !== 'never';
    for (const [field, { value, jsonPath }] of given) {
      const fieldSchema = def.shape[field];
      if (fieldSchema === undefined) {
        if (!open) problems.push(`${path}.${field}: not a field of the input schema`);
        continue;
      }
      if (!jsonPath) problems.push(...payloadProblems(fieldSchema, value, `${path}.${field}`));
    }
    for (const [field, fieldSchema] of Object.entries(def.shape)) {
      if (!given.has(field) && !isPresentFree(fieldSchema)) {
        problems.push(`${path}.${field}: required by the input schema, missing from the payload`);
      }
    }
    return problems;
  }
  if (def.type === 'array' && def.element !== undefined && Array.isArray(payload)) {
    const element = def.element;
    return payload.flatMap((item, i) => payloadProblems(element, item, `${path}[${i}]`));
  }
  const parsed = schema.safeParse(payload);
  return parsed.success
    ? []
    : [`${path}: ${JSON.stringify(payload)} is refused (${parsed.error.issues[0]?.message ?? 'invalid'})`];
}
