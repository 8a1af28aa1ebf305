import type { Check } from '../types.ts';

/**
 * The findings grader, by code: the findings must cite the planted file at a line within
 * `tolerance` lines of the planted line (`src/cart.ts:17`, `src/cart.ts:15-19`, `cart.ts#L17`,
 * or "line 17 of src/cart.ts" are all read). Paths match on their end, so `webshop/src/cart.ts`
 * counts as `src/cart.ts`.
 */

export interface Citation {
  file: string;
  from: number;
  to: number;
}

const PATH = String.raw`([A-Za-z0-9_./-]+\.[A-Za-z]{1,4})`;

export function citationsIn(text: string): Citation[] {
  const found: Citation[] = [];
  const colon = new RegExp(`${PATH}(?::|#L)(\\d+)(?:[-–](?:L)?(\\d+))?`, 'g');
  for (const m of text.matchAll(colon)) {
    const from = Number(m[2]);
    found.push({ file: m[1] as string, from, to: m[3] ? Number(m[3]) : from });
  }
  const words = new RegExp(`lines? (\\d+)(?:[-–](\\d+))? (?:of|in) \`?${PATH}`, 'gi');
  for (const m of text.matchAll(words)) {
    const from = Number(m[1]);
    found.push({ file: m[3] as string, from, to: m[2] ? Number(m[2]) : from });
  }
  return found;
}

const sameFile = (cited: string, truth: string) => {
  const a = cited.replace(/^\.?\//, '');
  return a === truth || a.endsWith(`/${truth}`) || truth.endsWith(`/${a}`);
};

export function gradeFindings(
  truth: { file: string; line: number },
  texts: readonly string[],
  tolerance = 3,
): Check {
  const citations = texts.flatMap(citationsIn);
  const hit = citations.find(
    (c) => sameFile(c.file, truth.file) && c.from - tolerance <= truth.line && truth.line <= c.to + tolerance,
  );
  const want = `${truth.file}:${truth.line}`;
  if (texts.length === 0)
    return {
      name: 'findings cite the bug',
      pass: false,
      detail: `no findings were posted (expected ${want})`,
    };
  return {
    name: 'findings cite the bug',
    pass: hit !== undefined,
    detail: hit
      ? `cites ${hit.file}:${hit.from}${hit.to !== hit.from ? `-${hit.to}` : ''} (planted at ${want})`
      : `cites ${citations.map((c) => `${c.file}:${c.from}`).join(', ') || 'no file:line'}, expected ${want} ±${tolerance}`,
  };
}
