import type { PipelineCase } from '../cases/pipeline.ts';
import type { Check } from '../types.ts';
import { type JudgeTransport, judgedCheck } from './judge.ts';

/**
 * The issues the pipeline's reviewer raised, when it raised any, judged against the case's
 * rubric (not judged, without a judge: failed). No issue raised: nothing to judge.
 */

export interface ReviewIssue {
  severity: string;
  file?: string;
  line?: number | null;
  issue: string;
}

export async function gradeReview(
  c: PipelineCase,
  issues: readonly ReviewIssue[],
  transport: JudgeTransport | undefined,
): Promise<Check[]> {
  if (issues.length === 0) return [];
  return [
    await judgedCheck(
      'reviewer issues are real (judge)',
      {
        task: 'Review a pull request that fixes an issue',
        context: `Issue: ${c.issue.title}\n${c.issue.body}\nThe real bug: ${c.bug.title} (${c.bug.truth.file}).`,
        answer: issues.map((i) => `${i.severity} ${i.file ?? ''}:${i.line ?? ''} ${i.issue}`).join('\n'),
        rubric: c.truth.reviewRubric,
      },
      transport,
    ),
  ];
}
