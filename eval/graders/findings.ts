import { locationSpan, MAX_LOCATION_LINES } from '../../lambdas/workflows/bug-investigation/contract.ts';
import type { Check } from '../types.ts';

/**
 * The findings grader, by code, on the fields the investigator submitted with its findings
 * (`location` and `root_cause`), never on file names anywhere in its prose: the location must be
 * the planted file (paths match on their end: `webshop/src/cart.ts` is `src/cart.ts`) and either
 * one line within `tolerance` lines of the planted line or a range of at most 15 lines that
 * holds it (a whole file is no location), and a cause must be stated.
 */

export interface SubmittedFindings {
  location?: string;
  rootCause?: string;
}

const sameFile = (cited: string, truth: string) => {
  const a = cited.replace(/^\.?\//, '');
  return a === truth || a.endsWith(`/${truth}`) || truth.endsWith(`/${a}`);
};

export function gradeFindings(
  truth: { file: string; line: number },
  findings: SubmittedFindings | undefined,
  tolerance = 3,
): Check[] {
  const want = `${truth.file}:${truth.line}`;
  if (findings === undefined)
    return [
      { name: 'findings locate the bug', pass: false, detail: `no findings were posted (expected ${want})` },
    ];
  const location = findings.location?.trim() ?? '';
  const span = locationSpan(location);
  const m = /^(.*):(\d+)(?:-(\d+))?$/.exec(location);
  let located: Check;
  if (!location || span === undefined || !m) {
    located = {
      name: 'findings locate the bug',
      pass: false,
      detail: `the findings name no location (${location ? `"${location.slice(0, 100)}"` : 'none'}), expected ${want}`,
    };
  } else {
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Number(m[3]);
    const near =
      span === 1 ? Math.abs(from - truth.line) <= tolerance : from <= truth.line && truth.line <= to;
    const pass = sameFile(m[1] as string, truth.file) && span <= MAX_LOCATION_LINES && near;
    located = {
      name: 'findings locate the bug',
      pass,
      detail: pass
        ? `located at ${location} (planted at ${want})`
        : span > MAX_LOCATION_LINES
          ? `${location} spans ${span} lines, more than ${MAX_LOCATION_LINES}: no location (planted at ${want})`
          : `located at ${location}, expected ${want}${span === 1 ? ` ±${tolerance}` : ' within the range'}`,
    };
  }
  const cause = findings.rootCause?.trim();
  return [
    located,
    {
      name: 'findings state the cause',
      pass: Boolean(cause),
      detail: cause ? `root cause: ${cause.slice(0, 120)}` : 'the findings state no root cause',
    },
  ];
}
