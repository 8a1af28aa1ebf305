import type { BugCase } from '../cases/bugs.ts';
import { gradeFindings, type SubmittedFindings } from '../graders/findings.ts';
import { plantedFiles } from '../repos/repos.ts';
import { verdictOf } from '../types.ts';
import type { ScriptedAnswer } from './scripted.ts';

/**
 * A bug case's scripted findings, graded by the findings grader: the planted line (and a short
 * range around it) with its cause must pass; a whole-file range, the file next to it, the right
 * file far from the line, a cause with no location, and a location written only in the prose
 * must fail. (The fix's hidden tests are the fix grader's, run by its own tests and every eval run.)
 */
export async function bugAnswers(c: BugCase): Promise<ScriptedAnswer[]> {
  const { files, line } = await plantedFiles(c);
  const file = c.truth.file;
  const length = (files[file] ?? '').split('\n').length;
  const neighbour =
    Object.keys(files).find(
      (f) => f !== file && f.split('/')[0] === file.split('/')[0] && /\.(ts|py)$/.test(f),
    ) ?? 'README.md';
  const cause = `${c.title}: the planted change at ${file}:${line}`;
  const graded = (
    label: string,
    right: boolean,
    findings: SubmittedFindings | undefined,
  ): ScriptedAnswer => ({
    label,
    right,
    grade: async () => verdictOf(gradeFindings({ file, line }, findings)),
  });
  return [
    graded('true answer: the line', true, { location: `${file}:${line}`, rootCause: cause }),
    graded('true answer: a short range', true, {
      location: `${file}:${Math.max(1, line - 3)}-${line + 3}`,
      rootCause: cause,
    }),
    graded('a whole-file range', false, { location: `${file}:1-${Math.max(length, 16)}`, rootCause: cause }),
    graded('the file next to it', false, { location: `${neighbour}:${line}`, rootCause: cause }),
    graded('the right file, far from the line', false, {
      location: `${file}:${line + 20}`,
      rootCause: cause,
    }),
    graded('a location with no cause', false, { location: `${file}:${line}` }),
    graded('a location in the prose only', false, { rootCause: cause }),
    graded('no findings', false, undefined),
  ];
}
